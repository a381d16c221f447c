/*
 * ct2engine: WhisperKey's C ABI over CTranslate2 Whisper (Rust cdylib on ct2rs).
 *
 * Failures return NULL; ct2e_last_error() then describes them (per thread).
 * Strings returned by the library are JSON, freed with ct2e_string_free().
 */
#ifndef CT2ENGINE_H
#define CT2ENGINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct2e_engine ct2e_engine;
typedef struct ct2e_encoded ct2e_encoded;

/* Opens a CTranslate2 Whisper model directory.
 * device: "cpu" or "cuda" (ROCm builds also use "cuda").
 * compute_type: "default", "auto", "int8", "int8_float32", "int8_float16",
 *   "int8_bfloat16", "int16", "float16", "bfloat16" or "float32".
 * intra_threads: threads per replica (0 = CTranslate2's default).
 * inter_threads: replicas (>= 1). */
ct2e_engine *ct2e_open(const char *model_dir, const char *device, int device_index,
                       const char *compute_type, int intra_threads, int inter_threads);
void ct2e_close(ct2e_engine *e);

/* {"n_mels":80,"multilingual":true,"num_languages":99,"languages":["en",...],"vocab_size":51865} */
char *ct2e_info(const ct2e_engine *e);

/* Encoder output of features shaped [batch, n_mels, frames], float32 row-major. */
ct2e_encoded *ct2e_encode(const ct2e_engine *e, const float *features, size_t batch,
                          size_t n_mels, size_t frames);
void ct2e_encoded_free(ct2e_encoded *x);

/* [["en",0.97],["de",0.01],...] best first. Multilingual models only. */
char *ct2e_detect_language(const ct2e_engine *e, const ct2e_encoded *x);

/* request: {"prompt":[50258,...], "beam_size":5, "patience":1, "length_penalty":1,
 *   "repetition_penalty":1, "no_repeat_ngram_size":0, "max_length":448,
 *   "sampling_topk":1, "sampling_temperature":1, "num_hypotheses":1,
 *   "return_scores":true, "return_no_speech_prob":true,
 *   "max_initial_timestamp_index":50, "suppress_blank":true, "suppress_tokens":[-1]}
 * (omitted fields take CTranslate2's defaults)
 * result:  {"sequences_ids":[[...]],"scores":[-0.2],"no_speech_prob":0.01} */
char *ct2e_generate(const ct2e_engine *e, const ct2e_encoded *x, const char *request);

/* Word timestamps: CTranslate2's alignment of one window's text tokens to its
 * encoded audio, through the model's alignment heads.
 * request: {"start_sequence":[50258,50259,50359], "text_tokens":[...],
 *   "num_frames":1500, "median_filter_width":7}
 * result:  {"alignments":[[text_index,time_index],...],"text_token_probs":[0.9,...]}
 * Optional: libraries built before word timestamps lack it. */
char *ct2e_align(const ct2e_engine *e, const ct2e_encoded *x, const char *request);

/* [{"device":"cpu","count":1,"compute_types":["float32","int8",...],"isa":"AVX2"}, {"device":"cuda",...}]
 * isa: the instruction set CTranslate2's CPU kernels dispatch to (AVX512, AVX2, AVX, GENERIC). */
char *ct2e_devices(void);

const char *ct2e_last_error(void);
void ct2e_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif
