import Stochastic

/// Devices offline (no network: switched off, in airplane mode, out of coverage) for a window of
/// the run (`providers.offline`). A push the provider would hand to a device inside its window is
/// stored by the provider under its storage rules (`PushWorld+Offline.swift`) and handed over when
/// the device reconnects, at the window's end. Whether a device goes offline, and its window, are
/// drawn per (seed, device, purpose), so a device's window is the same for every campaign; no
/// per-device memory for the draw. Absent: no device is offline (and no storage state exists).
package struct ProviderOfflineConfig: Sendable, Equatable {
    /// Share of the devices that go offline once in the run (0–1). Default 0.1: judgement (a night
    /// with the phone off or in airplane mode for one user in ten; measure it from the app's own
    /// reconnect telemetry).
    package var deviceShare: Double = 0.1
    /// When the first windows start, seconds of virtual time. Default 0: judgement (offline from
    /// the start of the run, as a send at night finds them).
    package var startSeconds: Double = 0
    /// Each window starts at `startSeconds + u × startSpreadSeconds`, u uniform in [0, 1) from the
    /// device's stream. Default 0: judgement (every window starts together).
    package var startSpreadSeconds: Double = 0
    /// How long a device stays offline, seconds. Default a constant 28 800 (8 h): judgement (a night).
    package var durationSeconds: Distribution = .constant(value: 28_800)

    /// The longest window a draw may give: 28 days, the longest FCM stores a message
    /// (`messageTtlSeconds` at most 2 419 200 s, Firebase "Setting the lifespan of a message").
    package static let durationSecondsMax = 2_419_200.0

    package init() {}
}
