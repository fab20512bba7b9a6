// An opt-in record of every event a run processes, for behaviour fingerprints (`prestage bench`)
// and debugging. A run without a trace does not touch this file's types: the wrapper is a separate
// handler type, so the untraced run loop is specialised exactly as before (zero cost when off).

/// Receives every event a traced run delivers, in delivery order.
@usableFromInline package protocol EventTraceSink {
    /// Called once per processed event, before its handler runs (cancelled events are never
    /// delivered, so never recorded).
    mutating func record(_ event: Event)
}

/// A handler that records each event in `sink`, then passes it to `inner`.
///
/// Generic over both, so `Kernel.run` specialises the pair with direct calls: no existential or
/// closure per event.
@usableFromInline package struct TracingHandler<Inner: EventHandler, Sink: EventTraceSink>: EventHandler {
    /// The model.
    @usableFromInline package var inner: Inner
    /// Where events are recorded.
    @usableFromInline package var sink: Sink

    /// Wraps `inner`, recording into `sink`.
    @inlinable
    package init(inner: Inner, sink: Sink) {
        self.inner = inner
        self.sink = sink
    }

    /// Records `event`, then lets `inner` handle it.
    /// - Complexity: the sink's `record` plus the inner handler.
    @inlinable
    package mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        sink.record(event)
        try inner.handle(event, in: &kernel)
    }

    /// Forwards progress reports to `inner`.
    @inlinable
    package mutating func progress(_ p: RunProgress) { inner.progress(p) }
}
