# backends/backends.cmake: how the replay backends register (backends/README.md, "Add a backend").
#
# jv_backends_include(DEF)
#   A macro, called at the top-level directory scope for backends/backends.def (enable_language(CUDA), which a
#   backend.cmake may run, must run there; a macro keeps its variables in that scope). For each line
#   JV_BACKEND(name, kind, toolkit) of DEF, in order, includes <folder of DEF>/<name>/backend.cmake, with
#   JV_BACKEND_NAME and JV_BACKEND_DIR set. backend.cmake decides whether its backend is built: it sets
#   JV_BACKEND_ENABLED to ON or OFF, and when ON defines the static library jv_backend_<name>, which defines
#   `const jv_backend jv_<name>_backend` (backend.h) and links jv_backend. A line whose folder has no
#   backend.cmake (yet) is known, not built. The outcome is recorded per name (global property
#   JV_BACKEND_BUILT_<name>): each backend is included once.
# jv_backend_registry(TARGET DEF...)
#   The registry library TARGET: backends/jv_backends.c compiled over the lines of the DEFs (in order, every
#   name included by jv_backends_include), linked with the libraries of those that are built. It includes
#   jv_backends_configured.def, written here into the build folder: JV_BACKEND(...) for a backend that is built,
#   JV_BACKEND_UNBUILT(...) for one that is not.

# out_names / out_lines: the names and the lines of the JV_BACKEND lines of def
function(jv_backends_read def out_names out_lines)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${def})
  file(STRINGS ${def} lines REGEX "^[ \t]*JV_BACKEND\\(")
  set(names "")
  set(kept "")
  foreach(line ${lines})
    string(STRIP "${line}" line)
    if(NOT line MATCHES "^JV_BACKEND\\(([a-z][a-z0-9_]*), *(JV_BACKEND_GPU|JV_BACKEND_HOST), *\"[^\"]*\"\\)$")
      message(FATAL_ERROR "jarvis: ${def}: not a backend line: ${line}\n"
                          "(expected JV_BACKEND(name, JV_BACKEND_GPU or JV_BACKEND_HOST, \"toolkit\"))")
    endif()
    list(APPEND names ${CMAKE_MATCH_1})
    list(APPEND kept "${line}")
  endforeach()
  set(${out_names} ${names} PARENT_SCOPE)
  set(${out_lines} "${kept}" PARENT_SCOPE)
endfunction()

macro(jv_backends_include def)
  get_filename_component(_jv_be_root ${def} DIRECTORY)
  jv_backends_read(${def} _jv_be_names _jv_be_lines)
  foreach(JV_BACKEND_NAME ${_jv_be_names})
    get_property(_jv_be_seen GLOBAL PROPERTY JV_BACKEND_BUILT_${JV_BACKEND_NAME} SET)
    if(_jv_be_seen)
      message(FATAL_ERROR "jarvis: backend ${JV_BACKEND_NAME} of ${def} is listed twice")
    endif()
    set(JV_BACKEND_DIR ${_jv_be_root}/${JV_BACKEND_NAME})
    set(JV_BACKEND_ENABLED OFF)
    if(EXISTS ${JV_BACKEND_DIR}/backend.cmake)
      include(${JV_BACKEND_DIR}/backend.cmake)
      if(JV_BACKEND_ENABLED AND NOT TARGET jv_backend_${JV_BACKEND_NAME})
        message(FATAL_ERROR "jarvis: ${JV_BACKEND_DIR}/backend.cmake enables backend ${JV_BACKEND_NAME} "
                            "but defines no library jv_backend_${JV_BACKEND_NAME}")
      endif()
    else()
      message(STATUS "jarvis: ${JV_BACKEND_NAME} backend OFF (no ${JV_BACKEND_DIR}/backend.cmake yet)")
    endif()
    if(JV_BACKEND_ENABLED)
      set_property(GLOBAL PROPERTY JV_BACKEND_BUILT_${JV_BACKEND_NAME} ON)
    else()
      set_property(GLOBAL PROPERTY JV_BACKEND_BUILT_${JV_BACKEND_NAME} OFF)
    endif()
  endforeach()
  unset(JV_BACKEND_NAME)
  unset(JV_BACKEND_DIR)
  unset(JV_BACKEND_ENABLED)
endmacro()

function(jv_backend_registry target)
  set(content "/* Written by backends/backends.cmake from ${ARGN}: do not edit. */\n")
  set(libs "")
  set(built "")
  foreach(def ${ARGN})
    jv_backends_read(${def} names lines)
    foreach(name line IN ZIP_LISTS names lines)
      get_property(seen GLOBAL PROPERTY JV_BACKEND_BUILT_${name} SET)
      if(NOT seen)
        message(FATAL_ERROR "jarvis: backend ${name} of ${def}: jv_backends_include(${def}) was not called")
      endif()
      get_property(is_built GLOBAL PROPERTY JV_BACKEND_BUILT_${name})
      if(is_built)
        list(APPEND libs jv_backend_${name})
        list(APPEND built ${name})
      else()
        string(REGEX REPLACE "^JV_BACKEND\\(" "JV_BACKEND_UNBUILT(" line "${line}")
      endif()
      string(APPEND content "${line}\n")
    endforeach()
  endforeach()
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/${target}.gen)
  file(CONFIGURE OUTPUT ${gen}/jv_backends_configured.def CONTENT "${content}" @ONLY)
  add_library(${target} STATIC ${PROJECT_SOURCE_DIR}/backends/jv_backends.c)
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/backends PRIVATE ${gen})
  target_link_libraries(${target} PUBLIC jv_backend ${libs})
  string(REPLACE ";" ", " built "${built}")
  message(STATUS "jarvis: ${target}: backends built: ${built}")
endfunction()
