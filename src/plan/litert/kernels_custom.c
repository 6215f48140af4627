// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_custom: the custom operators of LiteRT's default resolver whose kernels add to
 * the plan, TFLite_Detection_PostProcess and NumericVerify (the others, Mfcc,
 * AudioSpectrogram and aeq.hadamard_rotation, add nothing).
 */
#include "kernels_priv.h"

/*
 * TFLite_Detection_PostProcess: detection_postprocess.cc. Init reserves 2 tensors
 * (AddTensors(1) twice); Prepare makes them the temporaries decoded_boxes float32
 * [box_encodings dim 1, 4] and scores float32 [class_predictions dims 1 and 2], both
 * kTfLiteArenaRw. It resizes the 4 outputs from its flexbuffer options (max_detections
 * times max_classes_per_detection boxes), which the model reader does not keep: their
 * shapes are the model's, as the converter writes them.
 */
int kt_prep_detection_postprocess(struct kctx *k)
{
	const struct ap_model_tensor *box = input(k, 0), *cls = input(k, 1), *anc = input(k, 2);
	int32_t base = k->init_base[k->node];

	if (base < 0 || !box || !cls || !anc || k->mo->n_inputs != 3 || k->mo->n_outputs != 4 ||
	    box->rank != 3 || cls->rank != 3 || anc->rank != 2 || dim(box, 2) < 4)
		return 0;
	{
		int32_t boxes[2] = { dim(box, 1), 4 }, scores[2] = { dim(cls, 1), dim(cls, 2) };

		if (kt_set_tmp(k, 0, base, "decoded_boxes", AP_TT_FLOAT32, boxes, 2,
			       AP_ALLOC_ARENA) ||
		    kt_set_tmp(k, 1, base + 1, "scores", AP_TT_FLOAT32, scores, 2,
			       AP_ALLOC_ARENA))
			return -1;
	}
	return 0;
}

/*
 * NumericVerify: numeric_verify.cc, Prepare. Needs a uint8, int8, int16 or float16 input
 * and a float32 reference. Its first run adds 1 tensor, the temporary dequantized input:
 * float32 of the input's shape, kTfLiteDynamic (heap). The output becomes float32 of the
 * input's shape in the persistent arena (kTfLiteArenaRwPersistent).
 */
int kt_prep_numeric_verify(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	uint8_t it = in ? ttype(k, in_index(k, 0)) : 0;
	int32_t o;

	if (k->mo->n_inputs != 2 || k->mo->n_outputs != 1 || !in || !input(k, 1) ||
	    !mt(k, k->mo->outputs[0]) || ttype(k, in_index(k, 1)) != AP_TT_FLOAT32 ||
	    (it != AP_TT_UINT8 && it != AP_TT_INT8 && it != AP_TT_INT16 && it != AP_TT_FLOAT16))
		return 0;
	if (kt_new_tmp(k, "dequantized", AP_TT_FLOAT32, in->shape, in->rank, AP_ALLOC_DYNAMIC))
		return -1;
	o = k->mo->outputs[0];
	k->g->t[o].type = AP_TT_FLOAT32;
	k->g->t[o].alloc = AP_ALLOC_PERSISTENT;
	return kt_bytes_of(k, "float32 output", AP_TT_FLOAT32, in->shape, in->rank,
			   &k->g->t[o].bytes);
}
