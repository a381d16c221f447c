//! A small C ABI over CTranslate2's Whisper model, for WhisperKey's engine worker.
//!
//! Everything that is not CTranslate2 (features, tokenizer, decoding policy) lives in Go.
//! Calls return NULL or a negative number on failure; `ct2e_last_error` then holds the text.
//! Structured results are JSON strings freed with `ct2e_string_free`.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use ct2rs::sys::{
    get_device_count, ComputeType, Config, Device, StorageView, Whisper, WhisperOptions,
};
use serde::{Deserialize, Serialize};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

extern "C" {
    fn ct2e_caps(cuda: c_int, device_index: c_int) -> c_int;
    fn ct2e_cpu_isa_name() -> *const c_char;
}

fn set_error(msg: String) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs f, turning errors and panics into the last-error text and `fail`.
fn guard<T>(fail: T, f: impl FnOnce() -> Result<T, String>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(msg)) => {
            set_error(msg);
            fail
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            set_error(format!("engine panic: {msg}"));
            fail
        }
    }
}

unsafe fn str_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| format!("{what} is not UTF-8"))
}

fn json_out<T: Serialize>(v: &T) -> Result<*mut c_char, String> {
    let s = serde_json::to_string(v).map_err(|e| e.to_string())?;
    Ok(CString::new(s).map_err(|e| e.to_string())?.into_raw())
}

/// An open model and its vocabulary (ct2rs takes prompts as token strings only).
pub struct Engine {
    whisper: Whisper,
    vocab: Vec<String>,
    device: Device,
}

/// Encoder output of one window, reused by detect_language and every generate attempt.
pub struct Encoded(StorageView<'static>);

fn parse_compute_type(s: &str) -> Result<ComputeType, String> {
    Ok(match s {
        "" | "default" => ComputeType::DEFAULT,
        "auto" => ComputeType::AUTO,
        "float32" => ComputeType::FLOAT32,
        "int8" => ComputeType::INT8,
        "int8_float32" => ComputeType::INT8_FLOAT32,
        "int8_float16" => ComputeType::INT8_FLOAT16,
        "int8_bfloat16" => ComputeType::INT8_BFLOAT16,
        "int16" => ComputeType::INT16,
        "float16" => ComputeType::FLOAT16,
        "bfloat16" => ComputeType::BFLOAT16,
        other => return Err(format!("unknown compute type {other:?}")),
    })
}

fn load_vocab(dir: &Path) -> Result<Vec<String>, String> {
    let json = dir.join("vocabulary.json");
    if let Ok(b) = std::fs::read(&json) {
        return serde_json::from_slice(&b).map_err(|e| format!("{}: {e}", json.display()));
    }
    let txt = dir.join("vocabulary.txt");
    let s = std::fs::read_to_string(&txt)
        .map_err(|e| format!("{} (and vocabulary.json): {e}", txt.display()))?;
    Ok(s.lines().map(str::to_owned).collect())
}

/// Opens a CTranslate2 Whisper model directory.
///
/// # Safety
/// String arguments must be valid NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn ct2e_open(
    model_dir: *const c_char,
    device: *const c_char,
    device_index: c_int,
    compute_type: *const c_char,
    intra_threads: c_int,
    inter_threads: c_int,
) -> *mut Engine {
    guard(std::ptr::null_mut(), || {
        let dir = str_arg(model_dir, "model_dir")?;
        let device = match str_arg(device, "device")? {
            "cpu" => Device::CPU,
            "cuda" => Device::CUDA,
            other => return Err(format!("unknown device {other:?} (want cpu or cuda)")),
        };
        let compute_type = parse_compute_type(str_arg(compute_type, "compute_type")?)?;
        let vocab = load_vocab(Path::new(dir))?;
        // ct2rs makes one replica per listed index, so inter threads repeat the index.
        let replicas = inter_threads.max(1) as usize;
        let config = Config {
            device,
            compute_type,
            device_indices: vec![device_index; replicas],
            num_threads_per_replica: intra_threads.max(0) as usize,
            ..Config::default()
        };
        let whisper = Whisper::new(dir, config).map_err(|e| format!("{e:#}"))?;
        Ok(Box::into_raw(Box::new(Engine {
            whisper,
            vocab,
            device,
        })))
    })
}

/// Closes a model. The worker calls it at exit only for CPU models: a GPU model is
/// left to the OS at process exit (CTranslate2 #1782).
///
/// # Safety
/// `e` must come from `ct2e_open` and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn ct2e_close(e: *mut Engine) {
    if !e.is_null() {
        drop(Box::from_raw(e));
    }
}

#[derive(Serialize)]
struct Info<'a> {
    n_mels: usize,
    multilingual: bool,
    num_languages: usize,
    languages: Vec<&'a str>,
    vocab_size: usize,
}

/// Model facts as JSON: n_mels, multilingual, num_languages, languages, vocab_size.
///
/// # Safety
/// `e` must come from `ct2e_open`.
#[no_mangle]
pub unsafe extern "C" fn ct2e_info(e: *const Engine) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        let e = e.as_ref().ok_or("engine is NULL")?;
        let n = e.whisper.num_languages();
        let sot = e
            .vocab
            .iter()
            .position(|t| t == "<|startoftranscript|>")
            .ok_or("vocabulary has no <|startoftranscript|>")?;
        let languages = e
            .vocab
            .iter()
            .skip(sot + 1)
            .take(n)
            .map(|t| t.trim_start_matches("<|").trim_end_matches("|>"))
            .collect();
        json_out(&Info {
            n_mels: e.whisper.n_mels(),
            multilingual: e.whisper.is_multilingual(),
            num_languages: n,
            languages,
            vocab_size: e.vocab.len(),
        })
    })
}

/// Runs the encoder on features `[batch, n_mels, frames]` (float32, row-major).
///
/// # Safety
/// `features` must point to batch*n_mels*frames floats.
#[no_mangle]
pub unsafe extern "C" fn ct2e_encode(
    e: *const Engine,
    features: *const f32,
    batch: usize,
    n_mels: usize,
    frames: usize,
) -> *mut Encoded {
    guard(std::ptr::null_mut(), || {
        let e = e.as_ref().ok_or("engine is NULL")?;
        if features.is_null() || batch * n_mels * frames == 0 {
            return Err("empty features".into());
        }
        let mut data = std::slice::from_raw_parts(features, batch * n_mels * frames).to_vec();
        let view = StorageView::new(&[batch, n_mels, frames], &mut data, Device::CPU)
            .map_err(|err| format!("{err:#}"))?;
        // Keep the output on the model's device: generate reads it there.
        let out = e
            .whisper
            .encode(&view, e.device == Device::CPU)
            .map_err(|err| format!("encode: {err:#}"))?;
        Ok(Box::into_raw(Box::new(Encoded(out))))
    })
}

/// Frees an encoder output.
///
/// # Safety
/// `x` must come from `ct2e_encode` and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn ct2e_encoded_free(x: *mut Encoded) {
    if !x.is_null() {
        drop(Box::from_raw(x));
    }
}

/// Mirror of ct2rs's DetectionResult, whose fields are private. cxx lays out
/// shared structs as repr(C), so this has the same layout.
#[repr(C)]
struct Detection {
    language: String,
    probability: f32,
}

/// Language probabilities for the first batch item, best first, as JSON `[["en",0.97],…]`.
///
/// # Safety
/// Arguments must come from `ct2e_open` and `ct2e_encode`.
#[no_mangle]
pub unsafe extern "C" fn ct2e_detect_language(e: *const Engine, x: *const Encoded) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        let e = e.as_ref().ok_or("engine is NULL")?;
        let x = x.as_ref().ok_or("encoded is NULL")?;
        let res = e
            .whisper
            .detect_language(&x.0)
            .map_err(|err| format!("{err:#}"))?;
        let first = res.first().ok_or("no detection result")?;
        let out: Vec<(&str, f32)> = first
            .iter()
            .map(|d| {
                let d = &*(d as *const _ as *const Detection);
                (
                    d.language.trim_start_matches("<|").trim_end_matches("|>"),
                    d.probability,
                )
            })
            .collect();
        json_out(&out)
    })
}

/// Generation request: the prompt as token ids plus CTranslate2's WhisperOptions.
#[derive(Deserialize)]
#[serde(default)]
struct Request {
    prompt: Vec<usize>,
    beam_size: usize,
    patience: f32,
    length_penalty: f32,
    repetition_penalty: f32,
    no_repeat_ngram_size: usize,
    max_length: usize,
    sampling_topk: usize,
    sampling_temperature: f32,
    num_hypotheses: usize,
    return_scores: bool,
    return_no_speech_prob: bool,
    max_initial_timestamp_index: usize,
    suppress_blank: bool,
    suppress_tokens: Vec<i32>,
}

impl Default for Request {
    fn default() -> Self {
        let o = WhisperOptions::default();
        Request {
            prompt: Vec::new(),
            beam_size: o.beam_size,
            patience: o.patience,
            length_penalty: o.length_penalty,
            repetition_penalty: o.repetition_penalty,
            no_repeat_ngram_size: o.no_repeat_ngram_size,
            max_length: o.max_length,
            sampling_topk: o.sampling_topk,
            sampling_temperature: o.sampling_temperature,
            num_hypotheses: o.num_hypotheses,
            return_scores: o.return_scores,
            return_no_speech_prob: o.return_no_speech_prob,
            max_initial_timestamp_index: o.max_initial_timestamp_index,
            suppress_blank: o.suppress_blank,
            suppress_tokens: o.suppress_tokens,
        }
    }
}

#[derive(Serialize)]
struct Generated {
    sequences_ids: Vec<Vec<usize>>,
    scores: Vec<f32>,
    no_speech_prob: f32,
}

/// Runs f on an engine, an encoded window and a JSON request, for the calls
/// that take all three.
///
/// # Safety
/// As for the calls: pointers from `ct2e_open`/`ct2e_encode`, `request` NUL-terminated.
unsafe fn on_window<R: serde::de::DeserializeOwned>(
    e: *const Engine,
    x: *const Encoded,
    request: *const c_char,
    f: impl FnOnce(&Engine, &Encoded, R) -> Result<*mut c_char, String>,
) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        let e = e.as_ref().ok_or("engine is NULL")?;
        let x = x.as_ref().ok_or("encoded is NULL")?;
        let r = serde_json::from_str(str_arg(request, "request")?)
            .map_err(|err| format!("bad request: {err}"))?;
        f(e, x, r)
    })
}

/// Generates token ids for the first batch item. `request` is a JSON Request;
/// the result is JSON `{sequences_ids, scores, no_speech_prob}`.
///
/// # Safety
/// Arguments must come from `ct2e_open`/`ct2e_encode`; `request` NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn ct2e_generate(
    e: *const Engine,
    x: *const Encoded,
    request: *const c_char,
) -> *mut c_char {
    on_window(e, x, request, |e, x, r: Request| {
        let prompt = r
            .prompt
            .iter()
            .map(|&id| {
                e.vocab
                    .get(id)
                    .map(String::as_str)
                    .ok_or_else(|| format!("prompt token id {id} is outside the vocabulary"))
            })
            .collect::<Result<Vec<&str>, String>>()?;
        let opts = WhisperOptions {
            beam_size: r.beam_size,
            patience: r.patience,
            length_penalty: r.length_penalty,
            repetition_penalty: r.repetition_penalty,
            no_repeat_ngram_size: r.no_repeat_ngram_size,
            max_length: r.max_length,
            sampling_topk: r.sampling_topk,
            sampling_temperature: r.sampling_temperature,
            num_hypotheses: r.num_hypotheses,
            return_scores: r.return_scores,
            return_logits_vocab: false,
            return_no_speech_prob: r.return_no_speech_prob,
            max_initial_timestamp_index: r.max_initial_timestamp_index,
            suppress_blank: r.suppress_blank,
            suppress_tokens: r.suppress_tokens,
        };
        let res = e
            .whisper
            .generate(&x.0, &[prompt], &opts)
            .map_err(|err| format!("{err:#}"))?;
        let g = res.into_iter().next().ok_or("no generation result")?;
        json_out(&Generated {
            sequences_ids: g.sequences_ids,
            scores: g.scores,
            no_speech_prob: g.no_speech_prob,
        })
    })
}

/// Alignment request: the SOT sequence and one window's text tokens (no timestamps).
#[derive(Deserialize)]
struct AlignRequest {
    start_sequence: Vec<usize>,
    text_tokens: Vec<usize>,
    num_frames: usize,
    median_filter_width: i64,
}

#[derive(Serialize)]
struct Aligned {
    /// The DTW path as [text_index, time_index] pairs.
    alignments: Vec<(i64, i64)>,
    text_token_probs: Vec<f32>,
}

/// Aligns text tokens to the encoder frames of the first batch item
/// (CTranslate2's Whisper::align, as faster-whisper's word timestamps use it).
/// `request` is a JSON AlignRequest; the result is JSON `{alignments, text_token_probs}`.
///
/// # Safety
/// Arguments must come from `ct2e_open`/`ct2e_encode`; `request` NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn ct2e_align(
    e: *const Engine,
    x: *const Encoded,
    request: *const c_char,
) -> *mut c_char {
    on_window(e, x, request, |e, x, r: AlignRequest| {
        let res = e
            .whisper
            .align(
                &x.0,
                &r.start_sequence,
                &[r.text_tokens],
                &[r.num_frames],
                r.median_filter_width,
            )
            .map_err(|err| format!("align: {err:#}"))?;
        let a = res.into_iter().next().ok_or("no alignment result")?;
        json_out(&Aligned {
            alignments: a
                .alignments
                .iter()
                .map(|p| (p.token_x, p.frame_x))
                .collect(),
            text_token_probs: a.text_token_probs,
        })
    })
}

#[derive(Serialize)]
struct DeviceReport {
    device: &'static str,
    count: i32,
    compute_types: Vec<&'static str>,
    /// The CPU instruction set CTranslate2's kernels dispatch to (cpu only).
    #[serde(skip_serializing_if = "Option::is_none")]
    isa: Option<String>,
}

fn cpu_isa() -> Option<String> {
    let p = unsafe { ct2e_cpu_isa_name() };
    if p.is_null() {
        return None;
    }
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    (!s.is_empty()).then_some(s)
}

fn compute_types(cuda: bool, index: c_int) -> Vec<&'static str> {
    let bits = unsafe { ct2e_caps(cuda as c_int, index) };
    let mut v = vec!["float32"];
    if bits < 0 {
        return v;
    }
    let (int8, int16, f16, bf16) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0);
    if int8 {
        v.push("int8");
        v.push("int8_float32");
    }
    if int8 && f16 {
        v.push("int8_float16");
    }
    if int8 && bf16 {
        v.push("int8_bfloat16");
    }
    if int16 {
        v.push("int16");
    }
    if f16 {
        v.push("float16");
    }
    if bf16 {
        v.push("bfloat16");
    }
    v
}

/// The library's devices and the compute types each supports, as JSON.
#[no_mangle]
pub extern "C" fn ct2e_devices() -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        let cuda = get_device_count(Device::CUDA);
        let mut out = vec![DeviceReport {
            device: "cpu",
            count: 1,
            compute_types: compute_types(false, 0),
            isa: cpu_isa(),
        }];
        if cuda > 0 {
            out.push(DeviceReport {
                device: "cuda",
                count: cuda,
                compute_types: compute_types(true, 0),
                isa: None,
            });
        }
        json_out(&out)
    })
}

/// The text of the last error on this thread ("" if none). Valid until the next call.
#[no_mangle]
pub extern "C" fn ct2e_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Frees a string returned by this library.
///
/// # Safety
/// `s` must come from this library and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn ct2e_string_free(s: *mut c_char) {
    if !s.is_null() {
        drop(CString::from_raw(s));
    }
}
