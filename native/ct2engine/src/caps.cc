#include <string>

// Declares the few CTranslate2 capability queries that ct2rs does not bind.
// The library is linked statically through ct2rs, so the declarations only
// need to match its headers (include/ctranslate2/devices.h and types.h).
namespace ctranslate2 {
enum class Device { CPU, CUDA };
bool mayiuse_bfloat16(Device device, int device_index);
bool mayiuse_float16(Device device, int device_index);
bool mayiuse_int16(Device device, int device_index);
bool mayiuse_int8(Device device, int device_index);
namespace cpu {
enum class CpuIsa;
std::string isa_to_str(CpuIsa isa);
CpuIsa get_cpu_isa();
}  // namespace cpu
}  // namespace ctranslate2

// Returns a bit set: 1 int8, 2 int16, 4 float16, 8 bfloat16.
extern "C" int ct2e_caps(int cuda, int device_index) {
  const auto d = cuda ? ctranslate2::Device::CUDA : ctranslate2::Device::CPU;
  int bits = 0;
  try {
    if (ctranslate2::mayiuse_int8(d, device_index)) bits |= 1;
    if (ctranslate2::mayiuse_int16(d, device_index)) bits |= 2;
    if (ctranslate2::mayiuse_float16(d, device_index)) bits |= 4;
    if (ctranslate2::mayiuse_bfloat16(d, device_index)) bits |= 8;
  } catch (...) {
    return -1;
  }
  return bits;
}

// The instruction set CTranslate2 dispatches its CPU kernels to ("AVX512",
// "AVX2", "AVX", "GENERIC", "NEON"), or "" when it cannot say. Computed once.
extern "C" const char *ct2e_cpu_isa_name() {
  static const std::string isa = [] {
    try {
      return ctranslate2::cpu::isa_to_str(ctranslate2::cpu::get_cpu_isa());
    } catch (...) {
      return std::string();
    }
  }();
  return isa.c_str();
}
