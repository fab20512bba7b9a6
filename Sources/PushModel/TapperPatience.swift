import Stochastic

/// Users who react to latency: whether a tapper left before the screen painted
/// (`UsersConfig.abandonment`) and whether one who stayed read the article
/// (`UsersConfig.readProbability`). Draws come from their own stream per (device, campaign)
/// (purpose "push.user.patience"), so every other draw is unchanged and variants of a world share
/// them; no draw at all when nobody leaves and everybody reads.
struct TapperPatience {
    let curve: AbandonmentConfig
    let readProbability: Double
    /// No tapper leaves and every painted tap is read: nothing to draw.
    let drawsNothing: Bool
    let purpose = StreamPurpose("push.user.patience").rawValue

    init(users: UsersConfig) {
        curve = users.abandonment
        readProbability = users.readProbability
        drawsNothing = users.abandonment.isOff && users.readProbability >= 1
    }

    /// A tap on device `d` of campaign `c` painted `waitTicks` after the tap: whether the tapper
    /// had left by then (their patience, drawn by inversion of the curve, is shorter than the
    /// wait), and whether they read the article (stayed, then read).
    /// - Complexity: O(curve points); no allocation.
    func painted(device d: DeviceID, campaign c: CampaignID, waitTicks: Int64, population: Population) -> (abandoned: Bool, read: Bool) {
        if drawsNothing { return (false, true) }
        let left = curve.leftShare(at: Double(waitTicks) / 1e6)
        // Nobody has left by this wait and everybody reads: the draws could not change the
        // answer, so they are skipped (most pre-staged taps paint before the curve rises).
        if left <= 0 && readProbability >= 1 { return (false, true) }
        let rng = population.stream(entity: UInt64(d.rawValue) | UInt64(c.rawValue) << 32, purpose: purpose)
        // Patience P ≤ w  ⇔  U ≤ F(w) for U uniform and P = F⁻¹(U).
        let u = rng.uniform()
        if u < left { return (true, false) }
        return (false, rng.uniform() < readProbability)
    }

    /// A tap on device `d` of campaign `c` still waiting after `waitTicks` when the run ends
    /// (censored): whether the tapper has already left. Draws the same patience as `painted`.
    func leftWhileWaiting(device d: DeviceID, campaign c: CampaignID, waitTicks: Int64, population: Population) -> Bool {
        let left = curve.leftShare(at: Double(waitTicks) / 1e6)
        if left <= 0 { return false }
        let rng = population.stream(entity: UInt64(d.rawValue) | UInt64(c.rawValue) << 32, purpose: purpose)
        return rng.uniform() < left
    }
}
