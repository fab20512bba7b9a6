/// A point in time on the driver's clock, in whole microseconds.
///
/// PreloadKit never reads a clock: every input carries an explicit `now`. The origin is whatever
/// the driver chooses (virtual time in the simulator, a clock in an app); only differences
/// matter. Arithmetic saturates at the `Int64` range instead of trapping, so a huge TTL or
/// timeout taken from a payload can never crash the state machine.
///
/// Persistent stores: a `PreloadStore` entry's instants (`storedAt`, `expiresAt`, `staleUntil`,
/// `lastUsed`) are compared with the `now` of later sessions, possibly in another process (the
/// app and its extension) or after a reboot. Every process that opens a persisted store must
/// therefore use one shared timeline that survives reboots, e.g. microseconds since the Unix
/// epoch (a wall-clock anchor advanced by a monotonic clock within a process, as
/// `PreloadKitFoundation` does). A bare monotonic clock (uptime) restarts at boot and must not be
/// used. Within a session `now` must still never decrease. Because a wall clock can be set back,
/// validate a loaded store with `PreloadStore.dropEntriesFromTheFuture(now:toleranceMicroseconds:)`;
/// a clock set forward only makes entries look older (they expire early, which is safe).
///
/// Durations are plain `Int64` microsecond counts whose names say so (`timeoutMicroseconds`);
/// the name `Instant` was chosen so it does not clash with `Swift.Duration`.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the driver's clock origin.
    public var microseconds: Int64

    /// An instant `microseconds` after the driver's clock origin.
    @inlinable
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// The clock origin.
    public static let zero = Instant(microseconds: 0)

    /// The latest representable instant (used for "never").
    public static let distantFuture = Instant(microseconds: .max)

    /// This instant moved `delta` microseconds forward (or backward if negative), saturating.
    @inlinable
    public func advanced(byMicroseconds delta: Int64) -> Instant {
        let (sum, overflow) = microseconds.addingReportingOverflow(delta)
        if overflow { return Instant(microseconds: delta > 0 ? .max : .min) }
        return Instant(microseconds: sum)
    }

    /// This instant moved `seconds` forward, saturating.
    @inlinable
    public func advanced(bySeconds seconds: Int64) -> Instant {
        advanced(byMicroseconds: Instant.microseconds(fromSeconds: seconds))
    }

    /// `self - earlier` in microseconds, saturating.
    @inlinable
    public func microseconds(since earlier: Instant) -> Int64 {
        let (diff, overflow) = microseconds.subtractingReportingOverflow(earlier.microseconds)
        if overflow { return earlier.microseconds < 0 ? .max : .min }
        return diff
    }

    /// `seconds * 1_000_000`, saturating at the `Int64` range.
    @inlinable
    public static func microseconds(fromSeconds seconds: Int64) -> Int64 {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        return product
    }

    @inlinable
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.microseconds < rhs.microseconds }

    public var description: String { "t=\(microseconds)us" }
}
