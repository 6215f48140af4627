// SPDX-License-Identifier: Apache-2.0
/* check_report: check's table and JSON (include/arenaprof/render/check_report.h). */
#include <stdio.h>
#include <string.h>

#include "arenaprof/render/check_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"

#define TS(s) ap_text_safe((s), (char[AP_ERR_LEN + 64]){ 0 }, AP_ERR_LEN + 64)

void ap_check_text(FILE *f, const struct ap_features *fs)
{
	const struct ap_feature *kb;

	fprintf(f, "kernel %s, %s\n", TS(fs->kernel), TS(fs->arch));
	kb = ap_features_find(fs, "kernel_btf");
	if (!fs->btf_file && kb && kb->status == AP_FEAT_MISSING)
		fprintf(f, "BTF: missing, in the kernel too (see kernel_btf)\n\n");
	else if (!fs->btf_file)
		fprintf(f, "BTF: missing (--btf FILE or ARENAPROF_BTF=FILE fixes it)\n\n");
	else if (!strcmp(fs->btf_source, "built-in"))
		fprintf(f, "BTF: built-in (%s)\n\n", TS(fs->btf_file));
	else
		fprintf(f, "BTF: %s%s%s\n\n", fs->btf_source,
			strcmp(fs->btf_source, "--btf") ? "=" : " ", TS(fs->btf_file));
	fprintf(f, "%-13s %-8s %s\n", "FEATURE", "STATUS", "DETAIL / WITHOUT IT / KERNEL OPTION");
	for (size_t i = 0; i < fs->n; i++) {
		const struct ap_feature *ft = &fs->f[i];

		fprintf(f, "%-13s %-8s %s\n", ft->name, ap_feat_status_name(ft->status),
			TS(ft->detail));
		if (ft->status == AP_FEAT_OK)
			continue;
		fprintf(f, "%-22s without it: %s\n", "", ft->affects);
		fprintf(f, "%-22s kernel: %s\n", "", ft->kernel_option);
	}
	fprintf(f, "\nfaces:");
	for (int k = 0; k < AP_FACE_N; k++)
		fprintf(f, "%s %s %s", k ? "," : "", ap_face_name(k),
			ap_face_state_name(fs->face[k]));
	fprintf(f, "\n");
	if (fs->top_procfs)
		fprintf(f, "top without root: /proc, cgroup and PSI figures only (memory, "
			"smaps_rollup, pressure); its faults, runs, latency and allocations need "
			"root, or CAP_BPF and CAP_PERFMON\n");
}

void ap_check_json(FILE *f, const struct ap_features *fs)
{
	struct ap_json j;

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	ap_json_u64(&j, "schema_version", AP_CHECK_SCHEMA);
	ap_json_str(&j, "kernel", fs->kernel);
	ap_json_str(&j, "arch", fs->arch);
	ap_json_obj(&j, "btf");
	ap_json_str(&j, "source", fs->btf_source ? fs->btf_source : "missing");
	if (fs->btf_file)
		ap_json_str(&j, "file", fs->btf_file);
	else
		ap_json_null(&j, "file");
	ap_json_end_obj(&j);
	ap_json_arr(&j, "features");
	for (size_t i = 0; i < fs->n; i++) {
		const struct ap_feature *ft = &fs->f[i];

		ap_json_obj(&j, NULL);
		ap_json_str(&j, "name", ft->name);
		ap_json_str(&j, "status", ap_feat_status_name(ft->status));
		ap_json_str(&j, "detail", ft->detail);
		ap_json_str(&j, "affects", ft->affects);
		ap_json_str(&j, "kernel_option", ft->kernel_option);
		ap_json_end_obj(&j);
	}
	ap_json_end_arr(&j);
	ap_json_bool(&j, "top_procfs_only", fs->top_procfs);
	ap_json_obj(&j, "faces");
	for (int k = 0; k < AP_FACE_N; k++)
		ap_json_str(&j, ap_face_name(k), ap_face_state_name(fs->face[k]));
	ap_json_end_obj(&j);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}
