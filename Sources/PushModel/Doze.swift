/// Android Doze maintenance windows (all times in seconds of virtual time).
///
/// Deep Doze: the device entered deep idle `elapsed` seconds before t = 0. Idle periods start at
/// `firstIdle` and double up to `maxIdle`; each is followed by a maintenance window of `window`
/// seconds, so window k (k = 1, 2, ...) starts at `-elapsed + Σ_{j≤k} idle_j + (k−1)·window`.
/// Light Doze: windows of `lightWindow` seconds every `lightIdle + lightWindow` seconds, with the
/// device's phase in [0, 1) shifting the cycle.
/// Night cycle (`DozeState.night`): awake by day; from bedtime b the screen is off: awake until
/// b + `lightAfter`, light Doze (its cycle starting there) until b + `deepAfter`, then deep Doze
/// (entered at b + `deepAfter`), until the morning pick-up at b + idle, when deferred work runs at
/// once. Every night repeats one day later.
struct DozeSchedule {
    var firstIdleSeconds: Double
    var maxIdleSeconds: Double
    var windowSeconds: Double
    var lightIdleSeconds: Double
    var lightWindowSeconds: Double
    var lightAfterSeconds: Double
    var deepAfterSeconds: Double

    init(_ a: AndroidRulesConfig) {
        firstIdleSeconds = a.deepIdleFirstSeconds
        maxIdleSeconds = a.deepIdleMaxSeconds
        windowSeconds = a.deepMaintenanceWindowSeconds
        lightIdleSeconds = a.lightIdleSeconds
        lightWindowSeconds = a.lightMaintenanceWindowSeconds
        lightAfterSeconds = a.lightDozeAfterScreenOffSeconds
        deepAfterSeconds = max(a.lightDozeAfterScreenOffSeconds, a.deepDozeAfterScreenOffSeconds)
    }

    /// The first instant ≥ `t` at which device `a` may run deferred work.
    func nextWindow(atOrAfter t: Double, device a: DeviceAttributes) -> Double {
        a.doze == .night ? nextNightWindow(atOrAfter: t, bedSeconds: a.nightBedSeconds, idleSeconds: a.nightIdleSeconds)
            : nextWindow(atOrAfter: t, state: a.doze, phase: a.dozePhase)
    }

    /// Night cycle: the first instant ≥ `t` at which deferred work may run, for bedtimes at
    /// `bedSeconds` + whole days and `idleSeconds` (< one day) with the screen off from each.
    /// - Complexity: as `nextWindow(atOrAfter:state:phase:)`.
    func nextNightWindow(atOrAfter t: Double, bedSeconds: Double, idleSeconds: Double) -> Double {
        let day = 86_400.0
        let bed = bedSeconds + ((t - bedSeconds) / day).rounded(.down) * day
        let x = t - bed
        if x >= idleSeconds || x < lightAfterSeconds { return t }
        let wake = bed + idleSeconds
        let deepAt = bed + deepAfterSeconds
        var window: Double
        if t < deepAt {
            let cycle = lightIdleSeconds + lightWindowSeconds
            window = nextWindow(atOrAfter: t, state: .light, phase: (bed + lightAfterSeconds) / cycle)
            if window >= deepAt { window = nextWindow(atOrAfter: deepAt, state: .deep, phase: -deepAt) }
        } else {
            window = nextWindow(atOrAfter: t, state: .deep, phase: -deepAt)
        }
        return min(window, wake)
    }

    /// The first instant ≥ `t` at which a device in `state` with `phase` may run deferred work:
    /// `t` itself when awake or inside a window.
    /// - Complexity: O(log2(maxIdle / firstIdle)) steps, then O(1).
    func nextWindow(atOrAfter t: Double, state: DozeState, phase: Double) -> Double {
        switch state {
        case .awake, .night:
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
