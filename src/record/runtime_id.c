// SPDX-License-Identifier: Apache-2.0
/* runtime_id: a mapped library's runtime and version (include/arenaprof/record/runtime_id.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/record/runtime_id.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"

/* How far above a library its site-packages may be (mediapipe/python/X.so: two). */
#define MAX_LEVELS 6

static const char tag[] = "runtime: ";

/* src into dst (len bytes), cut to fit. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "DIR/ENTRY/FILE" into buf (len bytes): false when it does not fit. */
static bool join(char *buf, size_t len, const char *dir, const char *entry, const char *file)
{
	int n = snprintf(buf, len, "%s/%s/%s", dir, entry, file);

	return n > 0 && (size_t)n < len;
}

/*
 * Does the text file have a line that is want (whole: exact), or that starts with want
 * (a RECORD line: "PATH,HASH,SIZE")? A regular file only: the target's directories are
 * not trusted to hold no FIFO.
 */
static bool has_line(const char *path, const char *want, bool exact)
{
	char err[AP_ERR_LEN], *line = NULL;
	size_t cap = 0, n = strlen(want);
	FILE *f = ap_infile_fopen(path, err);
	bool yes = false;
	ssize_t k;

	if (!f)
		return false;
	while (!yes && (k = getline(&line, &cap, f)) > 0) {
		while (k && (line[k - 1] == '\n' || line[k - 1] == '\r'))
			line[--k] = '\0';
		yes = exact ? !strcmp(line, want) : !strncmp(line, want, n);
	}
	free(line);
	fclose(f);
	return yes;
}

/* METADATA's Name and Version headers (the lines before the first blank one). */
static int read_metadata(const char *path, struct ap_runtime_seen *rs)
{
	char err[AP_ERR_LEN], line[512];
	FILE *f = ap_infile_fopen(path, err);

	if (!f)
		return -ENOENT;
	rs->name[0] = rs->version[0] = '\0';
	while (fgets(line, sizeof(line), f) && line[0] != '\n' && line[0] != '\r') {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strncmp(line, "Name: ", 6))
			copy(rs->name, sizeof(rs->name), line + 6);
		else if (!strncmp(line, "Version: ", 9))
			copy(rs->version, sizeof(rs->version), line + 9);
	}
	fclose(f);
	/* a token each: the note is split at spaces */
	rs->name[strcspn(rs->name, " \t")] = '\0';
	rs->version[strcspn(rs->version, " \t")] = '\0';
	copy(rs->source, sizeof(rs->source), path);
	return rs->name[0] && rs->version[0] ? 0 : -ENOENT;
}

/*
 * Among dir's *.dist-info, the one whose RECORD lists rel (the library below dir). First
 * those whose top_level.txt names rel's first part, then those that have none: the
 * RECORDs of distributions that say their packages are others (numpy's, scipy's: large)
 * are never read. 0 and *rs; -ENOENT when none does; -ENOTDIR when dir has no *.dist-info
 * at all (not a site-packages: look higher).
 */
static int owner_in(const char *dir, const char *rel, struct ap_runtime_seen *rs)
{
	char top[256], path[1024], want[1024];
	DIR *d = opendir(dir);
	struct dirent *e;
	bool any = false;
	int rc = -ENOENT;

	if (!d)
		return -ENOTDIR;
	snprintf(top, sizeof(top), "%.*s", (int)strcspn(rel, "/"), rel);
	snprintf(want, sizeof(want), "%s,", rel);
	for (int listed = 1; rc && listed >= 0; listed--, rewinddir(d)) {
		while (rc && (e = readdir(d))) {
			size_t n = strlen(e->d_name);
			bool has_top;

			if (n <= 10 || strcmp(e->d_name + n - 10, ".dist-info"))
				continue;
			any = true;
			has_top = join(path, sizeof(path), dir, e->d_name, "top_level.txt") &&
				  !access(path, F_OK);
			if (has_top != listed || (has_top && !has_line(path, top, true)))
				continue;
			if (join(path, sizeof(path), dir, e->d_name, "RECORD") &&
			    has_line(path, want, false) &&
			    join(path, sizeof(path), dir, e->d_name, "METADATA"))
				rc = read_metadata(path, rs);
		}
	}
	closedir(d);
	return any ? rc : -ENOTDIR;
}

int ap_runtime_id_find(const char *lib, struct ap_runtime_seen *rs)
{
	char dir[1024];
	int rc = -ENOTDIR;

	memset(rs, 0, sizeof(*rs));
	copy(rs->lib, sizeof(rs->lib), lib);
	snprintf(dir, sizeof(dir), "%s", lib);
	for (int level = 0; level < MAX_LEVELS && rc == -ENOTDIR; level++) {
		char *slash = strrchr(dir, '/');

		if (!slash || slash == dir)
			break;
		*slash = '\0';
		rc = owner_in(dir, lib + strlen(dir) + 1, rs);
	}
	return rc ? -ENOENT : 0;
}

const char *ap_runtime_id_note_of(const char *lib, char *note, size_t len)
{
	struct ap_runtime_seen rs;

	if (ap_runtime_id_find(lib, &rs))
		snprintf(note, len, "%sunknown (%s is in no Python distribution)", tag, lib);
	else
		snprintf(note, len, "%s%s %s (from %s) in %s", tag, rs.name, rs.version,
			 rs.source, lib);
	return note;
}

/* The token at *p up to a space into buf: false when there is none or it does not fit. */
static bool token(const char **p, char *buf, size_t len)
{
	size_t n = strcspn(*p, " ");

	if (!n || n >= len || (*p)[n] != ' ')
		return false;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n + 1;
	return true;
}

bool ap_runtime_id_parse(const char *note, struct ap_runtime_seen *rs)
{
	static const char from[] = "(from ", in[] = ") in ";
	const char *p = note, *end;

	memset(rs, 0, sizeof(*rs));
	if (strncmp(p, tag, sizeof(tag) - 1))
		return false;
	p += sizeof(tag) - 1;
	if (!token(&p, rs->name, sizeof(rs->name)) ||
	    !token(&p, rs->version, sizeof(rs->version)) ||
	    strncmp(p, from, sizeof(from) - 1))
		return false;
	p += sizeof(from) - 1;
	end = strstr(p, in);
	if (!end || (size_t)(end - p) >= sizeof(rs->source))
		return false;
	memcpy(rs->source, p, (size_t)(end - p));
	copy(rs->lib, sizeof(rs->lib), end + sizeof(in) - 1);
	return true;
}
