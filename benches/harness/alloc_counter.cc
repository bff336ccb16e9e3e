// Counts heap allocations made by the calling thread while counting is on. The harness is
// linked with -rdynamic, so these definitions take the place of libc's for every library,
// the dlopen-ed tracers included.
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* ptr);
}

namespace {
// Initial-exec TLS of the executable: reading it never allocates.
thread_local bool tls_counting = false;
thread_local uint64_t tls_allocations = 0;

inline void Count() {
  if (tls_counting) ++tls_allocations;
}
}  // namespace

void alloc_counter_start() {
  tls_allocations = 0;
  tls_counting = true;
}

uint64_t alloc_counter_stop() {
  tls_counting = false;
  return tls_allocations;
}

extern "C" {
void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) {
  Count();
  return __libc_calloc(n, size);
}
void* realloc(void* ptr, size_t size) {
  Count();
  return __libc_realloc(ptr, size);
}
void free(void* ptr) { __libc_free(ptr); }
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Count();
  void* ptr = __libc_memalign(alignment, size);
  if (ptr == nullptr) return 12;  // ENOMEM
  *out = ptr;
  return 0;
}
}
