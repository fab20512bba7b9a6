import Foundation
import PreloadKit

/// The policy's decision kind (`PreloadPolicy.decision`) in the real driver: the caller passes
/// the OS's device inputs (battery, charging, Low Power Mode, cellular bytes today, the time zone's
/// offset: `DeviceInputs.utcOffsetSeconds(of:at:)`) in
/// `DeviceContext.inputs` with each push, and the session decides with them and the push's
/// signed `open_pct` hint. The `budgeted` kind's ledger is carried from push to push by the
/// driver; an app whose handler runs in a fresh process per push (an iOS extension) persists
/// `ledger` after each push (app-group `UserDefaults`, `SharedPreferences`) and passes it back in
/// the next push's `DeviceContext.ledger`.
extension PreloadDriver {
    /// The `budgeted` controller's state after the latest push (spending today, weights).
    public var ledger: PrestageLedger { budgetLedger }

    /// `context` with the driver's ledger when the caller passed none (`PrestageLedger.empty`).
    func contextWithLedger(_ context: DeviceContext) -> DeviceContext {
        guard context.ledger == .empty else { return context }
        var c = context
        c.ledger = budgetLedger
        return c
    }
}

extension DeviceInputs {
    /// `zone`'s offset from UTC at `date`, seconds (daylight saving included), for
    /// `utcOffsetSeconds`: the driver's clock is Unix time, whose days start at the UTC midnight,
    /// so the `budgeted` day then starts at the device's local midnight. Clamped to
    /// ±`utcOffsetSecondsMax`.
    public static func utcOffsetSeconds(of zone: TimeZone = .current, at date: Date = Date()) -> Int32 {
        Int32(clamping: max(-Int(utcOffsetSecondsMax), min(Int(utcOffsetSecondsMax), zone.secondsFromGMT(for: date))))
    }
}
