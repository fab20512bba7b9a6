// Virtual time: an integer count of ticks, 1 tick = 1 microsecond.
//
// Integer time makes ordering exact and runs reproducible (no floating-point drift when a time is
// accumulated over millions of events). Int64 microseconds cover about ±292,000 years.
//
// Overflow policy: the arithmetic operators (`+`, `-`, `*`) use Swift's checked integer arithmetic,
// so an overflow traps. Values that come from user input (scenario files) must be built with the
// validating initialisers (`init?(validatingSeconds:)`, `init?(validatingMilliseconds:)`) and
// combined with `SimTime.adding(_:)`, which return nil instead of trapping.
// The kernel itself never traps on a user-supplied delay: it uses `adding(_:)` and throws
// `KernelError.timeOverflow`.

/// Number of ticks in one second (1 tick = 1 µs).
@usableFromInline
let ticksPerSecond: Int64 = 1_000_000

/// Converts seconds to ticks, rounding to the nearest tick (ties away from zero); nil if `s` is not
/// finite or the result does not fit in Int64.
@inlinable
func ticksIfRepresentable(seconds s: Double) -> Int64? {
    guard s.isFinite else { return nil }
    let ticks = s * Double(ticksPerSecond)
    // Int64 range as doubles: [-2^63, 2^63). 2^63 itself is exactly representable and out of range.
    // Checking before rounding is the same: a double of magnitude >= 2^52 is already an integer.
    guard ticks >= -9_223_372_036_854_775_808.0, ticks < 9_223_372_036_854_775_808.0 else { return nil }
    return integerRoundedHalfAwayFromZero(ticks)
}

/// `Int64(v.rounded())` (to nearest, ties away from zero) for `v` in [-2^63, 2^63), without libm's
/// `round` call (baseline x86-64 has no instruction for this rounding mode): truncate, then step
/// away from zero when the dropped fraction is at least one half. `v - trunc(v)` is exact, so the
/// result is the same for every such `v`.
@inlinable
package func integerRoundedHalfAwayFromZero(_ v: Double) -> Int64 {
    let truncated = Int64(v)
    let fraction = v - Double(truncated)
    if fraction >= 0.5 { return truncated + 1 }
    if fraction <= -0.5 { return truncated - 1 }
    return truncated
}

/// Formats ticks as seconds with six decimals ("-1.000250s"); integer arithmetic only.
@usableFromInline
func formatSeconds(ticks: Int64) -> String {
    let magnitude = ticks.magnitude
    let whole = magnitude / UInt64(ticksPerSecond)
    let fraction = String(magnitude % UInt64(ticksPerSecond))
    let padded = String(repeating: "0", count: 6 - fraction.count) + fraction
    return (ticks < 0 ? "-" : "") + "\(whole).\(padded)s"
}

/// What `SimTime` and `SimDuration` share: an integer count of 1 µs ticks, unit-explicit
/// constructors, validating initialisers for user input, ordering and formatting.
@usableFromInline package protocol TickCount: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Microseconds.
    var ticks: Int64 { get set }
    /// The value of `ticks` microseconds.
    init(ticks: Int64)
}

extension TickCount {
    /// No ticks: the simulation epoch (`SimTime`), the empty span (`SimDuration`).
    @inlinable
    package static var zero: Self { Self(ticks: 0) }

    /// The largest tick count: the last representable instant (`RunLimits.timeMax`'s default, "no
    /// time limit"), the longest span.
    @inlinable
    package static var max: Self { Self(ticks: Int64.max) }

    /// `s` seconds, rounded to the nearest microsecond.
    /// - Precondition: `s` is finite and within ±9.2e12 s. For user input use `init?(validatingSeconds:)`.
    @inlinable
    package static func seconds(_ s: Double) -> Self {
        guard let t = ticksIfRepresentable(seconds: s) else {
            preconditionFailure("\(Self.self).seconds(\(s)): not a finite number of seconds within ±9.2e12")
        }
        return Self(ticks: t)
    }

    /// `ms` milliseconds. Traps on overflow (|ms| > 9.2e15).
    @inlinable
    package static func milliseconds(_ ms: Int64) -> Self { Self(ticks: ms * 1_000) }

    /// `us` microseconds.
    @inlinable
    package static func microseconds(_ us: Int64) -> Self { Self(ticks: us) }

    /// `s` seconds rounded to the nearest microsecond; nil if `s` is NaN, infinite or out of range.
    /// Use this for values read from user input.
    @inlinable
    package init?(validatingSeconds s: Double) {
        guard let t = ticksIfRepresentable(seconds: s) else { return nil }
        self.init(ticks: t)
    }

    /// `ms` milliseconds; nil if the tick count overflows.
    @inlinable
    package init?(validatingMilliseconds ms: Int64) {
        let (t, overflow) = ms.multipliedReportingOverflow(by: 1_000)
        guard !overflow else { return nil }
        self.init(ticks: t)
    }

    /// The value in seconds (exact up to 2^53 µs ≈ 285 years).
    @inlinable
    package var seconds: Double { Double(ticks) / Double(ticksPerSecond) }

    /// Smaller tick counts come first.
    @inlinable
    package static func < (a: Self, b: Self) -> Bool { a.ticks < b.ticks }

    /// Seconds with microsecond precision, e.g. "12.000500s".
    @usableFromInline package var description: String { formatSeconds(ticks: ticks) }
}

/// An instant of virtual time, in integer ticks of 1 microsecond since the simulation epoch.
@usableFromInline package struct SimTime: TickCount {
    /// Microseconds since the simulation epoch.
    @usableFromInline package var ticks: Int64

    /// The instant `ticks` microseconds after the epoch.
    @inlinable
    package init(ticks: Int64) { self.ticks = ticks }

    /// `self + d`, or nil if the result overflows.
    @inlinable
    package func adding(_ d: SimDuration) -> SimTime? {
        let (t, overflow) = ticks.addingReportingOverflow(d.ticks)
        return overflow ? nil : SimTime(ticks: t)
    }

    /// Traps on overflow; use `adding(_:)` when the duration comes from user input.
    @inlinable
    package static func + (t: SimTime, d: SimDuration) -> SimTime { SimTime(ticks: t.ticks + d.ticks) }

    /// Traps on overflow.
    @inlinable
    package static func - (t: SimTime, d: SimDuration) -> SimTime { SimTime(ticks: t.ticks - d.ticks) }

    /// The duration from `b` to `a`. Traps on overflow (only possible for instants ~292,000 years apart).
    @inlinable
    package static func - (a: SimTime, b: SimTime) -> SimDuration { SimDuration(ticks: a.ticks - b.ticks) }

    /// Advances `t` by `d`. Traps on overflow.
    @inlinable
    package static func += (t: inout SimTime, d: SimDuration) { t = t + d }
}

/// A span of virtual time, in integer ticks of 1 microsecond. May be negative.
@usableFromInline package struct SimDuration: TickCount {
    /// Microseconds.
    @usableFromInline package var ticks: Int64

    /// A duration of `ticks` microseconds.
    @inlinable
    package init(ticks: Int64) { self.ticks = ticks }

    /// Traps on overflow.
    @inlinable
    package static func + (a: SimDuration, b: SimDuration) -> SimDuration { SimDuration(ticks: a.ticks + b.ticks) }

    /// Traps on overflow.
    @inlinable
    package static func - (a: SimDuration, b: SimDuration) -> SimDuration { SimDuration(ticks: a.ticks - b.ticks) }

    /// Traps on overflow.
    @inlinable
    package static func * (d: SimDuration, n: Int64) -> SimDuration { SimDuration(ticks: d.ticks * n) }

    /// Traps on overflow.
    @inlinable
    package static func * (n: Int64, d: SimDuration) -> SimDuration { SimDuration(ticks: n * d.ticks) }
}
