import Foundation
import InfraModel
import Stochastic

/// Devices that change network over time (`PopulationConfig.networkChanges`): per device a
/// continuous-time Markov process over Wi-Fi and the cellular classes. Wi-Fi -> cellular at rate
/// a, cellular -> Wi-Fi at rate b, and, on cellular, handovers at rate h; every entry into
/// cellular and every handover draws the class from the region's cellular mix.
///
/// No event per change: each device keeps the class and time of its last look (5 bytes a device,
/// only when the feature is on), and a look at time t draws the class from the exact transition
/// probability over the time since (Markov property). With λ = a + b and π_w = b / λ:
/// - from Wi-Fi: Wi-Fi with probability π_w + (1 − π_w) e^{−λt}, else cellular with a class from
///   the mix;
/// - from cellular class j: still j with probability e^{−(b+h)t} (no event at all); else
///   cellular with a class from the mix up to P(cellular) = (1 − π_w) + π_w e^{−λt} (given
///   cellular after at least one event, the class is the mix's: every event ending in cellular
///   draws it afresh); else Wi-Fi.
/// With a = r / (2w) and b = r / (2(1 − w)) for the region's Wi-Fi share w, π_w = w: the mix stays
/// the share of devices on each class at every instant, and r is the long-run switch rate
/// (a·w + b·(1 − w)).
///
/// A session draws the time of its device's next change when it starts (`nextChangeSeconds`);
/// one change during the session fails its open fetches (`PushWorld.onNetworkChange`).
struct NetworkChanges {
    /// Per region: Wi-Fi -> cellular and cellular -> Wi-Fi rates, per second.
    let toCellular: [Double]
    let toWifi: [Double]
    /// Handovers per second while on cellular.
    let handover: Double
    /// Per region: the cellular classes' table (InfraModel raw value − 1), or nil when the region
    /// has no cellular share.
    let cellularTables: [DiscreteTable?]
    let isOn: Bool

    /// Per device (empty when off): the class at the last look (raw value; `unseen` before the
    /// first, when the population's draw at t = 0 holds) and its time, whole seconds.
    var lastClass: [UInt8]
    var lastSeconds: [Int32]

    static let unseen: UInt8 = 0xFF
    static let purposeLook = StreamPurpose("push.device.network.look").rawValue
    static let purposeSession = StreamPurpose("push.device.network.session").rawValue
    static let purposeChange = StreamPurpose("push.device.network.change").rawValue

    init(config: PushWorldConfig) throws {
        let p = config.population
        let n = config.infra.topology.effectiveRegions.count
        isOn = p.networkChanges.isOn
        handover = p.networkChanges.handoversPerDay / 86_400
        var a: [Double] = [], b: [Double] = [], tables: [DiscreteTable?] = []
        for r in 0..<n {
            let mixIndex = p.regionNetworkMix.lastIndex(where: { $0.region == r })
            let weights = mixIndex.map { p.regionNetworkMix[$0].mix.weights } ?? p.networkMix.weights
            let path = mixIndex.map { "population.regionNetworkMix[\($0)].mix" } ?? "population.networkMix"
            let total = weights.reduce(0, +)
            let w = total > 0 ? weights[0] / total : 0
            let rate = p.networkChanges.switchesPerDay / 86_400
            let switching = isOn && w > 0 && w < 1
            a.append(switching ? rate / (2 * w) : 0)
            b.append(switching ? rate / (2 * (1 - w)) : 0)
            let cellular = Array(weights.dropFirst())
            tables.append(isOn && cellular.reduce(0, +) > 0 ? try Population.table(cellular, path) : nil)
        }
        toCellular = a
        toWifi = b
        cellularTables = tables
        lastClass = isOn ? [UInt8](repeating: NetworkChanges.unseen, count: p.devices) : []
        lastSeconds = isOn ? [Int32](repeating: 0, count: p.devices) : []
    }

    /// Device `d`'s class before its look now: the last look's, or the population's draw.
    func previous(_ d: Int, _ a: DeviceAttributes) -> (net: InfraNetworkClass, seconds: Int32) {
        let raw = lastClass[d]
        if raw == NetworkChanges.unseen { return (a.network, 0) }
        return (InfraNetworkClass(rawValue: raw) ?? .wifi, lastSeconds[d])
    }

    /// A cellular class of region `r` drawn from its cellular mix.
    func drawCellular(_ r: Int, _ rng: RandomStream) -> InfraNetworkClass {
        guard let table = cellularTables[r] else { return .wifi }
        return InfraNetworkClass(rawValue: UInt8(1 + table.draw(rng))) ?? .wifi
    }

    /// Device `d`'s network class now (a look): drawn from the transition probability over the
    /// time since its last look, and recorded. Returns the class and whether it differs from the
    /// last look's.
    mutating func look(_ d: Int, _ a: DeviceAttributes, now: Int64, population: Population) -> (net: InfraNetworkClass, changed: Bool) {
        let (from, since) = previous(d, a)
        let nowSeconds = Int32(clamping: now / 1_000_000)
        let t = Double(max(0, nowSeconds - since))
        let r = Int(a.region)
        let lambda = toCellular[r] + toWifi[r]
        var to = from
        if t > 0 {
            // One look per device and second (a second look in the same second draws nothing).
            let rng = population.stream(entity: UInt64(d) | UInt64(UInt32(bitPattern: nowSeconds)) << 32, purpose: NetworkChanges.purposeLook)
            let u = rng.uniform()
            let piWifi = lambda > 0 ? toWifi[r] / lambda : 0
            let decay = exp(-lambda * t)
            if from == .wifi {
                if u >= piWifi + (1 - piWifi) * decay { to = drawCellular(r, rng) }
            } else {
                let stay = exp(-(toWifi[r] + handover) * t)
                let cellular = (1 - piWifi) + piWifi * decay
                if u >= cellular && lambda > 0 { to = .wifi } else if u >= stay { to = drawCellular(r, rng) }
            }
        }
        lastClass[d] = to.rawValue
        lastSeconds[d] = nowSeconds
        return (to, to != from)
    }

    /// The time to device `d`'s next network change from class `net` (exponential with the
    /// class's total rate), seconds; infinity when it never changes.
    func nextChangeSeconds(_ net: InfraNetworkClass, region r: Int, _ rng: RandomStream) -> Double {
        let rate = net == .wifi ? toCellular[r] : toWifi[r] + handover
        return rate > 0 ? rng.exponential(mean: 1 / rate) : .infinity
    }

    /// The class device `d` (on `net`) changes to at a change: from Wi-Fi a cellular class; from
    /// cellular Wi-Fi (probability b / (b + h)) or a handover to a cellular class. Recorded as the
    /// device's last look at `now`.
    mutating func change(_ d: Int, from net: InfraNetworkClass, region r: Int, now: Int64, _ rng: RandomStream) -> InfraNetworkClass {
        let to: InfraNetworkClass
        if net == .wifi {
            to = drawCellular(r, rng)
        } else {
            let toWifiRate = toWifi[r]
            to = rng.uniform() * (toWifiRate + handover) < toWifiRate ? .wifi : drawCellular(r, rng)
        }
        lastClass[d] = to.rawValue
        lastSeconds[d] = Int32(clamping: now / 1_000_000)
        return to
    }
}
