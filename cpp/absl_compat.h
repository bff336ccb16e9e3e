// Spellings valid with both Abseils the shims are built with: Debian's 20220623 (the tests
// here) and XLA's 20260526. See cpp/ABSL_COMPAT.md.
#ifndef XLA_ROCM_TRACER_CPP_ABSL_COMPAT_H_
#define XLA_ROCM_TRACER_CPP_ABSL_COMPAT_H_

#include "absl/base/config.h"

// absl::MutexLock's argument: `MutexLock(Mutex&)` exists from 20250814 and the pointer form is
// [[deprecated]] from 20260107; before 20250814 only `MutexLock(Mutex*)` exists. An Abseil
// built at head defines no LTS version and has the reference form. Used as
// `absl::MutexLock lock(XRT_MUTEX_LOCK_ARG(mu));`, so thread-safety analysis still sees a
// scoped lock of `mu`.
#if !defined(ABSL_LTS_RELEASE_VERSION) || ABSL_LTS_RELEASE_VERSION >= 20250814
#define XRT_MUTEX_LOCK_ARG(mu) (mu)
#else
#define XRT_MUTEX_LOCK_ARG(mu) (&(mu))
#endif

#endif  // XLA_ROCM_TRACER_CPP_ABSL_COMPAT_H_
