// kgo never talks to a network remote, yet libgit2 builds linked with mbedTLS (Debian's) parse the
// whole system CA bundle inside git_libgit2_init(): about 4 ms, a quarter of a `kgo init`. This
// definition in the executable interposes on mbedTLS's loader (exported by the link option in
// cli/CMakeLists.txt), so the bundle is not read. It fails closed: any TLS peer would go unverified
// and so be refused, never trusted. Builds of libgit2 on OpenSSL never call it.
extern "C" {
struct mbedtls_x509_crt;
int mbedtls_x509_crt_parse_file(mbedtls_x509_crt* chain, const char* path);
int mbedtls_x509_crt_parse_file(mbedtls_x509_crt*, const char*) { return 0; }
}
