# Install rules (`cmake --install build --prefix P`) and the files outside programs build with:
#   P/include/arenaref/*.h, P/lib/libarenaref{,_arena,_cert,_cuda}.{a,so*}, P/bin/arenacert,
#   P/lib/pkgconfig/arenaref{,-arena,-cert,-cuda}{,-static}.pc and P/lib/cmake/arenaref/.
# Every file is relocatable: .pc files find the prefix from their own folder (${pcfiledir}) and
# the CMake package from its own (arenarefConfig.cmake). The same .pc files, pointing into the
# build tree and the source headers, are written to build/lib/pkgconfig/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# ---- libraries, headers, tool -------------------------------------------------------------
set(AR_INSTALL_TARGETS "")
foreach(name IN LISTS AR_LIBRARIES)
  list(APPEND AR_INSTALL_TARGETS ${name} ${name}_shared)
endforeach()
install(TARGETS ${AR_INSTALL_TARGETS} arenacert
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(AR_HEADER_EXCLUDE "")
if(NOT ARENAREF_HAVE_CUDA)
  set(AR_HEADER_EXCLUDE PATTERN "cuda*.h" EXCLUDE) # only the CUDA library defines what they declare
endif()
install(DIRECTORY ${AR_INCLUDE}/arenaref DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" ${AR_HEADER_EXCLUDE})

# Installed shared libraries find their sibling parts beside them, and cudart where it was.
set(AR_CUDART_DIR "")
if(ARENAREF_HAVE_CUDA)
  get_filename_component(AR_CUDART_DIR "${CUDAToolkit_LIBRARY_DIR}" ABSOLUTE)
endif()
foreach(name IN LISTS AR_LIBRARIES)
  if(name STREQUAL arenaref_arena)
    continue()
  endif()
  set(rpath "")
  if(NOT name STREQUAL arenaref)
    list(APPEND rpath "\$ORIGIN")
  endif()
  if(ARENAREF_HAVE_CUDA AND name MATCHES "^arenaref(_cuda)?$")
    list(APPEND rpath ${AR_CUDART_DIR})
  endif()
  set_target_properties(${name}_shared PROPERTIES INSTALL_RPATH "${rpath}")
endforeach()

# ---- pkg-config ------------------------------------------------------------------------------
# NAME.pc links the shared library (`pkg-config --libs`; `--static` adds what a static link of
# it needs); NAME-static.pc names the static archive itself, the system libraries staying
# shared. The CUDA library must stay linked though nothing names it (it registers itself):
# --no-as-needed around it when shared, --undefined=ar_cuda_register when static.
set(AR_PC_CUDART "")
set(AR_PC_KEEP "")
if(ARENAREF_HAVE_CUDA)
  set(AR_PC_CUDART "-L${AR_CUDART_DIR} -lcudart")
  set(AR_PC_KEEP "-Wl,--undefined=ar_cuda_register ")
endif()
set(AR_PC_SYSTEM "-lpthread -lm")
function(ar_pc name description requires requires_private libs libs_private)
  foreach(tree build install)
    if(tree STREQUAL build)
      set(includedir ${AR_INCLUDE})
      set(out ${CMAKE_BINARY_DIR}/lib/pkgconfig/${name}.pc)
    else()
      set(includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
      set(out ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${name}.pc)
    endif()
    file(CONFIGURE OUTPUT ${out} @ONLY CONTENT
"prefix=\${pcfiledir}/../..
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=${includedir}

Name: ${name}
Description: ${description}
Version: ${PROJECT_VERSION}
Requires: ${requires}
Requires.private: ${requires_private}
Cflags: -I\${includedir}
Libs: ${libs}
Libs.private: ${libs_private}
")
  endforeach()
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

ar_pc(arenaref-arena "arenaref arenas, executors and views (host pages; GPUs with arenaref-cuda)"
      "" "hwloc" "-L\${libdir} -larenaref_arena" "${AR_PC_SYSTEM}")
ar_pc(arenaref-arena-static "arenaref arenas, executors and views, linked statically"
      "hwloc" "" "\${libdir}/libarenaref_arena.a ${AR_PC_SYSTEM}" "")
ar_pc(arenaref-cert "arenaref plans, JSON and the device arena certificate"
      "arenaref-arena" "jansson" "-L\${libdir} -larenaref_cert" "")
ar_pc(arenaref-cert-static "arenaref plans, JSON and the certificate, linked statically"
      "arenaref-arena-static jansson" "" "\${libdir}/libarenaref_cert.a" "")
set(AR_PC_UMBRELLA_REQUIRES "hwloc jansson")
if(ARENAREF_HAVE_CUDA)
  ar_pc(arenaref-cuda "arenaref GPU arenas and executors (CUDA backend)" "arenaref-arena" "hwloc"
        "-L\${libdir} ${AR_PC_KEEP}-Wl,--push-state,--no-as-needed -larenaref_cuda -Wl,--pop-state"
        "${AR_PC_CUDART}")
  ar_pc(arenaref-cuda-static "arenaref GPU arenas and executors (CUDA), linked statically"
        "arenaref-arena-static hwloc" ""
        "${AR_PC_KEEP}\${libdir}/libarenaref_cuda.a ${AR_PC_CUDART}" "")
endif()
ar_pc(arenaref "arenaref: arenas, the certificate and (where built) the CUDA backend in one"
      "" "${AR_PC_UMBRELLA_REQUIRES}" "-L\${libdir} ${AR_PC_KEEP}-larenaref"
      "${AR_PC_SYSTEM} ${AR_PC_CUDART}")
ar_pc(arenaref-static "arenaref in one library, linked statically" "${AR_PC_UMBRELLA_REQUIRES}" ""
      "${AR_PC_KEEP}\${libdir}/libarenaref.a ${AR_PC_CUDART} ${AR_PC_SYSTEM}" "")

# ---- CMake package -------------------------------------------------------------------------
set(AR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/arenaref)
set(AR_CUDART_LIBRARY "")
set(AR_CUDA_INCLUDE "")
if(ARENAREF_HAVE_CUDA)
  set(AR_CUDART_LIBRARY "${AR_CUDART_DIR}/libcudart.so")
  set(AR_CUDA_INCLUDE "${CUDAToolkit_INCLUDE_DIRS}")
endif()
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/arenarefConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/cmake/arenarefConfig.cmake
                              INSTALL_DESTINATION ${AR_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cmake/arenarefConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cmake/arenarefConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cmake/arenarefConfigVersion.cmake
        DESTINATION ${AR_CMAKE_DIR})
