// kgo never talks to a network remote, yet libgit2 built on mbedTLS (Debian's) parses the whole system
// CA bundle inside git_libgit2_init(): about 4 ms, a quarter of a `kgo init`. The loader is replaced
// here (see cli/CMakeLists.txt for how), so the bundle is not read. It fails closed: with no trusted
// certificate, any TLS peer would be refused, never trusted. libgit2 on OpenSSL never calls it.
extern "C" {
struct mbedtls_x509_crt;
#ifdef KGO_LIBGIT2_IS_STATIC
int __wrap_mbedtls_x509_crt_parse_file(mbedtls_x509_crt* chain, const char* path);
int __wrap_mbedtls_x509_crt_parse_file(mbedtls_x509_crt*, const char*) { return 0; }
#else
int mbedtls_x509_crt_parse_file(mbedtls_x509_crt* chain, const char* path);
int mbedtls_x509_crt_parse_file(mbedtls_x509_crt*, const char*) { return 0; }
#endif
}
