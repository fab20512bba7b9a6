import Foundation
import PreloadKit

/// The driver's clock: a monotonic clock (`ContinuousClock`, which keeps counting while the device
/// sleeps, like the OS's handler budget) mapped onto PreloadKit's `Instant`.
///
/// The origin is chosen so that an `Instant` reads as microseconds since the Unix epoch at the
/// moment the clock was created (`anchorMicroseconds`), and from then on advances with the
/// monotonic clock only. Within one driver time therefore never goes backwards (PreloadKit's rule),
/// and instants persisted in the store index stay comparable across processes (the app and its
/// extension, a later push, after a reboot: PreloadKit's timeline requirement, see `Instant`) as long
/// as the wall clock was not set back between them; the file store drops entries dated more than
/// `PreloadDriverConfiguration.futureEntryToleranceMicroseconds` in the future when it loads the
/// index (`PreloadStore.dropEntriesFromTheFuture`).
struct DriverClock: Sendable {
    /// The monotonic reading at creation.
    let anchor: ContinuousClock.Instant
    /// Wall-clock microseconds since the Unix epoch at creation.
    let anchorMicroseconds: Int64

    init() {
        anchor = ContinuousClock.now
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        anchorMicroseconds = Int64(spec.tv_sec) &* 1_000_000 &+ Int64(spec.tv_nsec) / 1_000
    }

    /// The current instant (microseconds, rounded down).
    func now() -> Instant {
        Instant(microseconds: anchorMicroseconds).advanced(byMicroseconds: Self.microseconds(ContinuousClock.now - anchor))
    }

    /// The monotonic instant at which `instant` is reached. `now()` read at or after it returns an
    /// instant `>= instant` (both round the same way).
    func continuousInstant(for instant: Instant) -> ContinuousClock.Instant {
        let delta = instant.microseconds(since: Instant(microseconds: anchorMicroseconds))
        // Clamp "never" (Instant.distantFuture) to a year so Duration arithmetic cannot overflow.
        return anchor + .microseconds(min(delta, 366 * 86_400 * 1_000_000))
    }

    /// A duration in whole microseconds, rounded down, saturating at the Int64 range.
    static func microseconds(_ d: Duration) -> Int64 {
        let (seconds, attoseconds) = d.components
        let (us, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        let (sum, o2) = us.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        if o2 { return seconds > 0 ? .max : .min }
        return sum
    }
}
