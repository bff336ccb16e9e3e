//! Time: the SDK's clock and thread ids, host or virtual ([`clock`]), and when device work
//! starts and ends on its queue or copy engine ([`device`])
//! (docs/simulator-fidelity.md#asynchronous-completion, #record-contents).
//! Read from every thread; only the driver and the signal thread move virtual time.
pub(crate) mod clock;
pub(crate) mod device;
