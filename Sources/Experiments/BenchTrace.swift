import struct PreloadKit.SHA256Hasher
import ScenarioFormat
import SimKernel

/// The behaviour fingerprint of one replication: SHA-256 over every processed event, in order.
package struct BenchFingerprint: Codable, Sendable, Equatable {
    /// The replication traced.
    var replication: Int
    /// Events hashed.
    package var events: UInt64
    /// "sha256:" + 64 hex digits.
    package var sha256: String

    /// A fingerprint; see the properties.
    init(replication: Int, events: UInt64, sha256: String) {
        self.replication = replication
        self.events = events
        self.sha256 = sha256
    }
}

/// An `EventTraceSink` hashing each event as 22 little-endian bytes: time in ticks (Int64),
/// kind (UInt16), target (UInt32), payload (UInt64). Events are packed into a fixed buffer and
/// hashed a block of events at a time, so recording allocates nothing.
struct TraceHasher: EventTraceSink {
    /// Bytes per event.
    static let eventBytes = 22
    /// Events buffered before hashing.
    static let bufferEvents = 2_048

    private var hasher = SHA256Hasher()
    private var buffer: [UInt8]
    private var used = 0
    private(set) var events: UInt64 = 0

    init() { buffer = [UInt8](repeating: 0, count: Self.eventBytes * Self.bufferEvents) }

    mutating func record(_ event: Event) {
        if used == buffer.count { flush() }
        var o = used
        buffer.withUnsafeMutableBufferPointer { b in
            var t = UInt64(bitPattern: event.time.ticks)
            for _ in 0..<8 { b[o] = UInt8(truncatingIfNeeded: t); t >>= 8; o += 1 }
            let k = event.kind.rawValue
            b[o] = UInt8(truncatingIfNeeded: k); b[o + 1] = UInt8(truncatingIfNeeded: k >> 8); o += 2
            var g = event.target
            for _ in 0..<4 { b[o] = UInt8(truncatingIfNeeded: g); g >>= 8; o += 1 }
            var p = event.payload
            for _ in 0..<8 { b[o] = UInt8(truncatingIfNeeded: p); p >>= 8; o += 1 }
        }
        used = o
        events &+= 1
    }

    private mutating func flush() {
        buffer.withUnsafeBufferPointer { hasher.update(UnsafeBufferPointer(rebasing: $0[0..<used])) }
        used = 0
    }

    /// The fingerprint of everything recorded (the hasher is spent afterwards).
    mutating func fingerprint(replication: Int) -> BenchFingerprint {
        flush()
        return BenchFingerprint(replication: replication, events: events, sha256: "sha256:" + hexString(hasher.finalize()))
    }
}
