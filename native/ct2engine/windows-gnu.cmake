# CMake toolchain for cross-building CTranslate2 (through ct2rs) for
# x86_64-pc-windows-gnu with Debian's mingw-w64 posix compilers
# (scripts/windows-engine.sh passes it as CMAKE_TOOLCHAIN_FILE).
# CMAKE_SYSTEM_PROCESSOR must be x86_64: cmake-rs would otherwise say AMD64,
# and ruy then builds no AVX2/FMA/AVX-512 kernels (about 30x slower, silently).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
