//! Buffer records into events: the main buffer's callback, which decodes a batch, attributes it
//! to the running session and hands it to the sink, the record decoder, and the kernel names it
//! reads.
//!
//! Thread: the SDK's buffer thread (the buffer callback); the kernel names are written by the
//! CODE_OBJECT callback on the SDK's code-object thread. One room because everything here
//! turns a record into a `RocmTracerEvent`; what the application thread noted for a call
//! (annotations, copy calls, streams) is only read here.
pub(crate) mod buffer_callback;
pub(crate) mod kernel_names;
pub(crate) mod record_decoder;
