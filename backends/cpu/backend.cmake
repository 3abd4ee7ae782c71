# backends/cpu: the CPU backend, always built (the host backend of `--backend auto`); its library
# jv_backend_cpu is defined in CMakeLists.txt beside this file.
set(JV_BACKEND_ENABLED ON)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR})
