import PreloadKit

/// The policy's decision kind (`PreloadPolicy.decision`) in the real driver: the caller passes
/// the OS's device inputs (battery, charging, Low Power Mode, cellular bytes today) in
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
