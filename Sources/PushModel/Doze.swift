/// Android Doze maintenance windows (all times in seconds of virtual time).
///
/// Deep Doze: the device entered deep idle `elapsed` seconds before t = 0. Idle periods start at
/// `firstIdle` and double up to `maxIdle`; each is followed by a maintenance window of `window`
/// seconds, so window k (k = 1, 2, ...) starts at `-elapsed + Σ_{j≤k} idle_j + (k−1)·window`.
/// Light Doze: windows of `lightWindow` seconds every `lightIdle + lightWindow` seconds, with the
/// device's phase in [0, 1) shifting the cycle.
struct DozeSchedule {
    var firstIdleSeconds: Double
    var maxIdleSeconds: Double
    var windowSeconds: Double
    var lightIdleSeconds: Double
    var lightWindowSeconds: Double

    init(_ a: AndroidRulesConfig) {
        firstIdleSeconds = a.deepIdleFirstSeconds
        maxIdleSeconds = a.deepIdleMaxSeconds
        windowSeconds = a.deepMaintenanceWindowSeconds
        lightIdleSeconds = a.lightIdleSeconds
        lightWindowSeconds = a.lightMaintenanceWindowSeconds
    }

    /// The first instant ≥ `t` at which a device in `state` with `phase` may run deferred work:
    /// `t` itself when awake or inside a window.
    /// - Complexity: O(log2(maxIdle / firstIdle)) steps, then O(1).
    func nextWindow(atOrAfter t: Double, state: DozeState, phase: Double) -> Double {
        switch state {
        case .awake:
            return t
        case .light:
            let cycle = lightIdleSeconds + lightWindowSeconds
            let x = t - (phase * cycle + lightIdleSeconds)
            let within = x - (x / cycle).rounded(.down) * cycle
            return within < lightWindowSeconds ? t : t + (cycle - within)
        case .deep:
            var start = -phase + firstIdleSeconds
            var idle = firstIdleSeconds
            while idle < maxIdleSeconds {
                if t < start { return start }
                if t < start + windowSeconds { return t }
                idle = min(2 * idle, maxIdleSeconds)
                start += windowSeconds + idle
            }
            // From here every period is maxIdle: jump straight to the window at or after t.
            let period = maxIdleSeconds + windowSeconds
            if t >= start {
                let k = ((t - start) / period).rounded(.down)
                start += k * period
            }
            if t < start { return start }
            if t < start + windowSeconds { return t }
            return start + period
        }
    }
}
