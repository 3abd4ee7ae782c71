# backends/hip: detection of the HIP compiler (hipcc) and runtime (libamdhip64), and the offload targets.
# Included by jv_backends_include (backends/backends.cmake) at the top-level directory scope.
# Sets JV_HAVE_HIP, JV_HIP_ARCHS_USED, JV_HIP_CU_SOURCES and the JV_HIP* paths used by backends/hip/CMakeLists.txt,
# which defines the libraries (added at the end, when built). Never required unless JV_HIP=ON.
#
# Why hipcc and not CMake's HIP language: enable_language(HIP) fails with Debian's packages (CMake 3.25 looks for
# <ROCm root>/lib/cmake/hip-lang/hip-lang-config.cmake; Debian installs it under lib/x86_64-linux-gnu/cmake, and
# CMAKE_HIP_COMPILER=clang++-15 fails the same way). So the device sources kernels/<family>/*.cu, the same files the
# CUDA backend compiles, are compiled here by hipcc through custom commands (CMakeLists.txt), with the C flags of
# the project's C files for the host C files. This works with Debian's hipcc 5.2 and with a ROCm install alike.
#
# Offload targets: JV_HIP_ARCHS (a list; empty: gfx90a (MI200) and gfx942 (MI300X), or gfx940 in place of gfx942
# when hipcc does not know gfx942 yet: hipcc 5.2 does not; its gfx940 code does not load on an MI300X, so build
# there with a ROCm of 6.0 or later, or set JV_HIP_ARCHS=gfx942 explicitly).
set(JV_HIP AUTO CACHE STRING "HIP backend: AUTO (when hipcc and libamdhip64 are found), ON (required) or OFF")
set_property(CACHE JV_HIP PROPERTY STRINGS AUTO ON OFF)
set(JV_HIP_ARCHS "" CACHE STRING "HIP offload targets (list); empty: gfx90a;gfx942 (gfx940 when hipcc lacks gfx942)")

set(JV_HAVE_HIP OFF)
set(JV_HIP_MISSING "")
if(NOT JV_HIP STREQUAL "OFF")
  set(_jv_rocm $ENV{ROCM_PATH} /opt/rocm)
  list(TRANSFORM _jv_rocm APPEND /bin OUTPUT_VARIABLE _jv_rocm_bin)
  list(TRANSFORM _jv_rocm APPEND /include OUTPUT_VARIABLE _jv_rocm_inc)
  list(TRANSFORM _jv_rocm APPEND /lib OUTPUT_VARIABLE _jv_rocm_lib)
  find_program(JV_HIPCC NAMES hipcc PATHS ${_jv_rocm_bin} DOC "HIP compiler driver")
  find_path(JV_HIP_INCLUDE_DIR hip/hip_runtime_api.h PATHS ${_jv_rocm_inc} DOC "HIP runtime headers")
  find_library(JV_AMDHIP_LIBRARY amdhip64 PATHS ${_jv_rocm_lib} DOC "HIP runtime library (libamdhip64)")
  if(NOT JV_HIPCC)
    string(APPEND JV_HIP_MISSING "\n  HIP compiler: hipcc not found (put it on PATH, set ROCM_PATH or JV_HIPCC)")
  endif()
  if(NOT JV_HIP_INCLUDE_DIR OR NOT JV_AMDHIP_LIBRARY)
    string(APPEND JV_HIP_MISSING "\n  HIP runtime: hip/hip_runtime_api.h and libamdhip64 (Debian: libamdhip64-dev)")
  endif()
  foreach(tool CMAKE_LINKER CMAKE_NM CMAKE_OBJCOPY)
    if(NOT ${tool})
      string(APPEND JV_HIP_MISSING "\n  ${tool}: the binutils that link the HIP objects (ld -r, nm, objcopy)")
    endif()
  endforeach()
  file(GLOB JV_HIP_CU_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../../kernels/*/*.cu)
  if(NOT JV_HIP_CU_SOURCES)
    string(APPEND JV_HIP_MISSING "\n  sources: kernels/*/*.cu")
  endif()
  if(JV_HIPCC AND NOT JV_HIP_MISSING)
    set(JV_HIP_ARCHS_USED ${JV_HIP_ARCHS})
    if(NOT JV_HIP_ARCHS_USED)
      # does hipcc know gfx942? (asked once per build folder)
      if(NOT DEFINED JV_HIP_KNOWS_GFX942)
        set(_probe ${CMAKE_BINARY_DIR}/CMakeFiles/jv_hip_probe)
        file(WRITE ${_probe}/probe.hip "#include <hip/hip_runtime.h>\n__global__ void jv_probe(void) {}\n")
        execute_process(COMMAND ${JV_HIPCC} --offload-arch=gfx942 -c ${_probe}/probe.hip -o ${_probe}/probe.o
                        RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
        if(_rc EQUAL 0)
          set(JV_HIP_KNOWS_GFX942 ON CACHE INTERNAL "hipcc accepts --offload-arch=gfx942")
        else()
          set(JV_HIP_KNOWS_GFX942 OFF CACHE INTERNAL "hipcc accepts --offload-arch=gfx942")
        endif()
      endif()
      if(JV_HIP_KNOWS_GFX942)
        set(JV_HIP_ARCHS_USED gfx90a gfx942)
      else()
        set(JV_HIP_ARCHS_USED gfx90a gfx940)
      endif()
    endif()
    # vendor libraries (hipBLASLt, rocBLAS, MIOpen): not looked for here; the backend loads them at run time
    # (jv_hip_vendor.c, dlopen), so one build uses them wherever the install has them
    set(JV_HAVE_HIP ON)
  endif()
  if(JV_HIP STREQUAL "ON" AND NOT JV_HAVE_HIP)
    message(FATAL_ERROR "jarvis: JV_HIP=ON but the HIP backend cannot be built; missing:${JV_HIP_MISSING}")
  endif()
endif()
if(JV_HAVE_HIP)
  message(STATUS "jarvis: HIP backend ON (${JV_HIPCC}; offload targets ${JV_HIP_ARCHS_USED}; ${JV_AMDHIP_LIBRARY}; "
                 "hipBLASLt / rocBLAS / MIOpen loaded at run time where installed)")
elseif(JV_HIP STREQUAL "OFF")
  message(STATUS "jarvis: HIP backend OFF (JV_HIP=OFF)")
else()
  message(STATUS "jarvis: HIP backend OFF; missing:${JV_HIP_MISSING}")
endif()

# registration (backends/backends.cmake): built when JV_HAVE_HIP; the libraries are defined in CMakeLists.txt
set(JV_BACKEND_ENABLED ${JV_HAVE_HIP})
if(JV_HAVE_HIP)
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR})
endif()
