# tests/backends/null: the test backend, always built in the test build; its library jv_backend_null is defined in
# CMakeLists.txt beside this file.
set(JV_BACKEND_ENABLED ON)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR})
