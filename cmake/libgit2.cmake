# Defines kgo_libgit2: libgit2 and its dependencies linked from their static archives where all of them
# are installed (Debian's -dev packages ship them), else the shared libgit2. Statically linked, kgo loads
# about ten fewer shared libraries at every start (evidence/init-vs-git-*.md).
# Sets KGO_LIBGIT2_IS_STATIC. -DKGO_LIBGIT2_STATIC=OFF forces the shared library.
option(KGO_LIBGIT2_STATIC "Link libgit2 from its static archives when they are installed" ON)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2)
add_library(kgo_libgit2 INTERFACE)
set(KGO_LIBGIT2_IS_STATIC OFF)

if(KGO_LIBGIT2_STATIC)
  set(kgo_archives "")
  set(kgo_missing "")
  # libgit2's own private dependencies (pkg-config --static), then libssh2's crypto.
  foreach(name git2 mbedtls mbedx509 mbedcrypto http_parser ssh2 crypto pcre2-8 z)
    find_library(KGO_ARCHIVE_${name} NAMES lib${name}.a)
    if(KGO_ARCHIVE_${name})
      list(APPEND kgo_archives ${KGO_ARCHIVE_${name}})
    else()
      list(APPEND kgo_missing lib${name}.a)
    endif()
  endforeach()
  # Kerberos (libgit2's Negotiate auth) has no archive; its shared library comes with libgit2's.
  find_library(KGO_GSSAPI NAMES gssapi_krb5 libgssapi_krb5.so.2)
  if(NOT KGO_GSSAPI)
    list(APPEND kgo_missing libgssapi_krb5)
  endif()
  if(kgo_missing)
    message(STATUS "kgo: libgit2 linked shared (no ${kgo_missing})")
  else()
    find_package(Threads REQUIRED)
    set(kgo_static_libs ${kgo_archives} ${KGO_GSSAPI} Threads::Threads ${CMAKE_DL_LIBS} rt)
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_INCLUDES ${LIBGIT2_INCLUDE_DIRS})
    set(CMAKE_REQUIRED_LIBRARIES ${kgo_static_libs})
    check_cxx_source_compiles("#include <git2.h>
      int main() { git_libgit2_init(); git_repository* r = nullptr;
                   return git_repository_open(&r, \".\") + git_libgit2_shutdown(); }" KGO_LIBGIT2_STATIC_LINKS)
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_LIBRARIES)
    if(KGO_LIBGIT2_STATIC_LINKS)
      set(KGO_LIBGIT2_IS_STATIC ON)
      target_include_directories(kgo_libgit2 INTERFACE ${LIBGIT2_INCLUDE_DIRS})
      target_link_libraries(kgo_libgit2 INTERFACE ${kgo_static_libs})
      message(STATUS "kgo: libgit2 linked from static archives")
    else()
      message(STATUS "kgo: libgit2 linked shared (its static archives do not link here)")
    endif()
  endif()
endif()

if(NOT KGO_LIBGIT2_IS_STATIC)
  target_link_libraries(kgo_libgit2 INTERFACE PkgConfig::LIBGIT2)
endif()
