# cpp-httplib, the HTTP server of `orrery serve` (docs/server.md), compiled
# into the one translation unit that includes it (server/http_listener.cc),
# without TLS or compression.
#
# Debian 12's binary package (libcpp-httplib-dev) ships the library split: a
# header of declarations and a shared object linked to OpenSSL, zlib and
# brotli. Linked into orrery, every orrery process — each supervisor and each
# `orrery --version` included — would load those (measured: +5.5 ms per exec,
# +6 MiB RSS; docs/server.md, "The HTTP library"). So the whole header is
# taken from the same Debian package's source: its upstream tarball and its
# Debian patches (the CVE-2023-26130 fix), pinned by SHA-256, downloaded once
# into ORRERY_DEPS_DIR and shared by every build tree.
set(ORRERY_DEPS_DIR "${CMAKE_SOURCE_DIR}/build/deps" CACHE PATH
    "where the sources of build dependencies are downloaded (docs/development.md)")
set(ORRERY_HTTPLIB_MIRROR "http://deb.debian.org/debian/pool/main/c/cpp-httplib" CACHE STRING
    "where the Debian source package of cpp-httplib is downloaded from")

set(_httplib_dir "${ORRERY_DEPS_DIR}/cpp-httplib-0.11.4+ds-1+deb12u1")
set(_httplib_header "${_httplib_dir}/include/httplib.h")

file(MAKE_DIRECTORY "${ORRERY_DEPS_DIR}")
# Build trees configured at once take turns.
file(LOCK "${ORRERY_DEPS_DIR}/cpp-httplib.lock" GUARD FILE)
if(NOT EXISTS "${_httplib_header}")
  set(_orig cpp-httplib_0.11.4+ds.orig.tar.xz)
  set(_orig_sha256 8b1a5df569003b6a4f24c68489bbda5c64aec94697bdc9ebba5d79408b2ae7eb)
  set(_debian cpp-httplib_0.11.4+ds-1+deb12u1.debian.tar.xz)
  set(_debian_sha256 a0adf8a38610806f6d94ba69839438635e5e6580775e28ff31d6a081e34f1484)
  set(_work "${_httplib_dir}.work")
  file(REMOVE_RECURSE "${_work}")
  foreach(_file IN ITEMS _orig _debian)
    message(STATUS "Downloading ${ORRERY_HTTPLIB_MIRROR}/${${_file}}")
    file(DOWNLOAD "${ORRERY_HTTPLIB_MIRROR}/${${_file}}" "${_work}/${${_file}}"
         EXPECTED_HASH SHA256=${${_file}_sha256} STATUS _status TLS_VERIFY ON)
    list(GET _status 0 _code)
    if(NOT _code EQUAL 0)
      message(FATAL_ERROR "cannot download ${ORRERY_HTTPLIB_MIRROR}/${${_file}}: ${_status}. "
                          "Download it by hand into ${_work}, or set ORRERY_HTTPLIB_MIRROR.")
    endif()
    file(ARCHIVE_EXTRACT INPUT "${_work}/${${_file}}" DESTINATION "${_work}")
  endforeach()
  file(GLOB _source_dir LIST_DIRECTORIES true "${_work}/yhirose-cpp-httplib-*")
  file(STRINGS "${_work}/debian/patches/series" _patches)
  find_program(ORRERY_PATCH_PROGRAM patch REQUIRED)
  foreach(_patch IN LISTS _patches)
    execute_process(COMMAND ${ORRERY_PATCH_PROGRAM} -p1 -s -i "${_work}/debian/patches/${_patch}"
                    WORKING_DIRECTORY "${_source_dir}" RESULT_VARIABLE _patched)
    if(NOT _patched EQUAL 0)
      message(FATAL_ERROR "cannot apply the Debian patch ${_patch} to cpp-httplib")
    endif()
  endforeach()
  file(MAKE_DIRECTORY "${_httplib_dir}/include")
  file(COPY "${_source_dir}/httplib.h" "${_source_dir}/LICENSE"
       DESTINATION "${_httplib_dir}/include")
  file(REMOVE_RECURSE "${_work}")
endif()
file(LOCK "${ORRERY_DEPS_DIR}/cpp-httplib.lock" RELEASE)

add_library(orrery_httplib INTERFACE)
target_include_directories(orrery_httplib SYSTEM INTERFACE "${_httplib_dir}/include")
# httplib listens with a backlog of 5: a burst of connections past it waits
# for SYN retransmits (a second or more each). The kernel caps this at
# net.core.somaxconn.
target_compile_definitions(orrery_httplib INTERFACE CPPHTTPLIB_LISTEN_BACKLOG=1024)
# The files that include httplib.h compile with these options: at -O1 GCC 12
# reports a false "may be used uninitialized" inside libstdc++'s <regex>,
# which httplib.h instantiates; the warning is in the standard library, not in
# httplib or orrery, and every other warning stays an error in those files.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(ORRERY_HTTPLIB_WARNING_OPTIONS -Wno-maybe-uninitialized)
else()
  set(ORRERY_HTTPLIB_WARNING_OPTIONS "")
endif()
