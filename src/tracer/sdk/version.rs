//! The SDK version gate. HIP_STREAM callback tracing, on which every stream id of this
//! tracer depends, first shipped in rocprofiler-sdk 1.0.0 (ROCm 7.0; docs/xla-interface.md#version-baseline).
//! On an older SDK the stream ids would silently be wrong, so the tracer refuses to start.
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SdkVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl SdkVersion {
    pub(crate) const MINIMUM: SdkVersion = SdkVersion {
        major: 1,
        minor: 0,
        patch: 0,
    };

    pub fn is_supported(self) -> bool {
        self >= Self::MINIMUM
    }

    /// `Err` with a message naming the version found when it is too old.
    pub(crate) fn require_supported(self) -> Result<(), String> {
        if self.is_supported() {
            Ok(())
        } else {
            Err(format!(
                "rocprofiler-sdk {self} is too old: the ROCm tracer needs rocprofiler-sdk >= {} \
                 (ROCm 7.0) for HIP stream tracing (ROCPROFILER_CALLBACK_TRACING_HIP_STREAM)",
                Self::MINIMUM
            ))
        }
    }
}

impl fmt::Display for SdkVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_is_one_zero_zero_and_ordering_is_semantic() {
        let v = |major, minor, patch| SdkVersion {
            major,
            minor,
            patch,
        };
        assert!(!v(0, 6, 0).is_supported());
        assert!(!v(0, 99, 99).is_supported());
        assert!(v(1, 0, 0).is_supported());
        assert!(v(1, 3, 2).is_supported());
        assert_eq!(v(0, 6, 0).to_string(), "0.6.0");
        let message = v(0, 6, 0).require_supported().unwrap_err();
        assert!(
            message.contains("rocprofiler-sdk 0.6.0 is too old"),
            "{message}"
        );
        assert!(message.contains(">= 1.0.0"), "{message}");
        assert!(v(1, 0, 0).require_supported().is_ok());
    }
}
