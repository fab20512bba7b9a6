import Foundation
import InfraModel
import Stochastic

/// Android Doze state of a device for the run.
enum DozeState: UInt8 {
    case awake = 0, light, deep
    /// Follows the night cycle (`PopulationConfig.dozeNight`): awake by day, dozing from bedtime
    /// until the morning pick-up (`DeviceAttributes.nightBedSeconds`, `nightIdleSeconds`).
    case night
}

/// A device's attributes, derived on demand (never stored).
struct DeviceAttributes: Equatable {
    var isIOS: Bool
    /// iOS: the user force-quit the app (silent pushes are not delivered).
    var forceQuit: Bool
    var region: UInt32
    var network: InfraNetworkClass
    var lowDataMode: Bool
    var saveData: Bool
    /// Android standby bucket: 0 active, 1 working set, 2 frequent, 3 rare, 4 restricted.
    var standbyBucket: Int
    var doze: DozeState
    /// Deep Doze: seconds since entering deep idle at t = 0; light Doze: phase of the window
    /// cycle in [0, 1).
    var dozePhase: Double
    /// Night cycle: the virtual time of a bedtime (every bedtime is this plus whole days), seconds.
    var nightBedSeconds: Double = 0
    /// Night cycle: how long the screen stays off from bedtime, seconds (< one day).
    var nightIdleSeconds: Double = 0
    var segment: Int
    var freeStorageBytes: Int64
    var preexistingStoreBytes: Int64
    /// What the OS reports to the decision kinds (`population.devicePower`; unknown without it).
    var batteryLevel: Double? = nil
    var charging = false
    var lowPowerMode = false
}

/// Derives device and per-campaign user attributes from (run seed, entity, purpose) streams, so
/// they need no storage and two variants of a world on the same seed see the same devices
/// (common random numbers). Not `Sendable`: one per run (it owns a reusable stream).
///
/// Every draw of a group comes from its own stream in a fixed order, and variable-draw samplers
/// come last, so a change to one distribution never shifts another attribute.
final class Population {
    let runSeed: UInt64
    let deviceCount: Int
    let iosShare: Double
    let forceQuitShare: Double
    let lowDataShare: Double
    let saveDataShare: Double
    /// Categorical draws, each a GSL Walker alias table built once per run: region, network
    /// class per region, standby bucket, Doze state, user segment.
    let regionTable: DiscreteTable
    let networkTables: [DiscreteTable]
    let bucketTable: DiscreteTable
    let dozeTable: DiscreteTable
    let segmentTable: DiscreteTable
    let deepDozeElapsedMaxSeconds: Double
    let freeStorage: Sampler
    let preexisting: Sampler
    /// Per segment: open probability iOS, Android.
    let openIOS: [Double]
    let openAndroid: [Double]
    let tapDelay: Sampler
    let render: Sampler
    /// Night cycle (`PopulationConfig.dozeNight`): share of Android devices, clock at t = 0,
    /// bedtime and screen-off length.
    let nightShare: Double
    let nightClockAtStartSeconds: Double
    /// Per region, its UTC offset, seconds: a night follows the region's local clock.
    let nightOffsetSeconds: [Double]
    let nightBedtime: Sampler
    let nightIdle: Sampler
    /// Per-user open probabilities and hints (`users.openHint`); nil: the segment's probability.
    let openHint: OpenHintModel?
    /// Battery, charging and Low Power Mode draws (`population.devicePower`); nil: none.
    let devicePower: DevicePowerConfig?

    private let rng = RandomStream(seed: 1)
    private let purposeDevice = StreamPurpose("push.device").rawValue
    private let purposeUser = StreamPurpose("push.user").rawValue
    private let purposeRender = StreamPurpose("push.user.render").rawValue
    private let purposeNight = StreamPurpose("push.device.night").rawValue

    init(config: PushWorldConfig, runSeed: UInt64) throws {
        self.runSeed = runSeed
        let p = config.population
        deviceCount = p.devices
        iosShare = p.iosShare
        forceQuitShare = p.iosForceQuitShare
        lowDataShare = p.lowDataModeShare
        saveDataShare = p.saveDataShare
        let regions = config.infra.topology.effectiveRegions
        let weights = p.regionWeights.isEmpty ? regions.map(\.audienceWeight) : p.regionWeights
        precondition(weights.reduce(0, +) > 0, "region weights sum to 0 (the scenario format rejects this)")
        regionTable = try Population.table(weights, "population.regionWeights")
        var nets: [DiscreteTable] = []
        for r in 0..<regions.count {
            let mixIndex = p.regionNetworkMix.lastIndex(where: { $0.region == r })
            let path = mixIndex.map { "population.regionNetworkMix[\($0)].mix" } ?? "population.networkMix"
            nets.append(try Population.table(mixIndex.map { p.regionNetworkMix[$0].mix.weights } ?? p.networkMix.weights, path))
        }
        networkTables = nets
        bucketTable = try Population.table(p.standbyBuckets.weights, "population.standbyBuckets")
        dozeTable = try Population.table(p.doze.weights, "population.doze")
        segmentTable = try Population.table(config.users.segments.map(\.share), "users.segments")
        deepDozeElapsedMaxSeconds = p.deepDozeElapsedMaxSeconds
        freeStorage = try Population.sampler(p.freeStorageBytes, "population.freeStorageBytes")
        preexisting = try Population.sampler(p.preexistingStoreBytes, "population.preexistingStoreBytes")
        openIOS = config.users.segments.map(\.iosOpenProbability)
        openAndroid = config.users.segments.map(\.androidOpenProbability)
        tapDelay = try Population.sampler(config.users.tapDelaySeconds, "users.tapDelaySeconds")
        render = try Population.sampler(config.users.renderSeconds, "users.renderSeconds")
        nightShare = p.dozeNight.deviceShare
        nightClockAtStartSeconds = p.dozeNight.clockAtStartSeconds
        nightOffsetSeconds = regions.map { Double($0.utcOffsetSeconds) }
        nightBedtime = try Population.sampler(p.dozeNight.bedtimeSeconds, "population.dozeNight.bedtimeSeconds")
        nightIdle = try Population.sampler(p.dozeNight.idleSeconds, "population.dozeNight.idleSeconds")
        devicePower = p.devicePower
        openHint = try config.users.openHint.map { try OpenHintModel($0, world: config) }
    }

    static func sampler(_ d: Distribution, _ path: String) throws -> Sampler {
        do { return try Sampler(d) } catch {
            throw PushModelError(path: path, reason: "expected a distribution GSL can sample, found \(d) (\(error))")
        }
    }

    static func table(_ weights: [Double], _ path: String) throws -> DiscreteTable {
        do { return try DiscreteTable(weights: weights) } catch {
            throw PushModelError(path: path, reason: "expected weights GSL can draw from, found \(weights) (\(error))")
        }
    }

    /// The attributes of device `device`.
    /// - Complexity: O(log regions); no allocation.
    func device(_ device: DeviceID) -> DeviceAttributes {
        rng.reseed(StreamSeed.derive(masterSeed: runSeed, entity: UInt64(device.rawValue), purpose: purposeDevice))
        let isIOS = rng.bernoulli(iosShare)
        let forceQuit = rng.bernoulli(forceQuitShare)
        let region = regionTable.draw(rng)
        let net = networkTables[region].draw(rng)
        let lowData = rng.bernoulli(lowDataShare)
        let saveData = rng.bernoulli(saveDataShare)
        let bucket = bucketTable.draw(rng)
        let doze = dozeTable.draw(rng)
        let phase = rng.uniform()
        let segment = segmentTable.draw(rng)
        let free = freeStorage.sample(rng, clampedTo: 0...SampledBounds.freeStorageBytesMax)
        let pre = preexisting.sample(rng, clampedTo: 0...SampledBounds.preexistingStoreBytesMax)
        var a = DeviceAttributes(
            isIOS: isIOS, forceQuit: isIOS && forceQuit, region: UInt32(region),
            network: InfraNetworkClass(rawValue: UInt8(net)) ?? .wifi, lowDataMode: lowData, saveData: saveData,
            standbyBucket: bucket, doze: isIOS ? .awake : (DozeState(rawValue: UInt8(doze)) ?? .awake),
            dozePhase: doze == 2 ? phase * deepDozeElapsedMaxSeconds : phase, segment: segment,
            freeStorageBytes: Int64(free), preexistingStoreBytes: Int64(pre))
        if nightShare > 0 && !isIOS { drawNight(device, into: &a) }
        if let devicePower { drawPower(device, devicePower, into: &a) }
        return a
    }

    /// Whether Android device `d` follows the night cycle, and its bedtime and screen-off length:
    /// a stream of its own, so the other attributes keep their draws (none when the share is 0).
    private func drawNight(_ d: DeviceID, into a: inout DeviceAttributes) {
        rng.reseed(StreamSeed.derive(masterSeed: runSeed, entity: UInt64(d.rawValue), purpose: purposeNight))
        guard rng.bernoulli(nightShare) else { return }
        let bedtime = nightBedtime.sample(rng, clampedTo: 0...SampledBounds.bedtimeSecondsMax)
        a.doze = .night
        // Local clock = UTC clock at t = 0 + the region's offset + t (an offset of 0 subtracts 0).
        a.nightBedSeconds = bedtime - nightClockAtStartSeconds - nightOffsetSeconds[Int(a.region)]
        a.nightIdleSeconds = nightIdle.sample(rng, clampedTo: 0...SampledBounds.idleSecondsMax)
    }

    /// Per (device, campaign) user draws: in the audience, opens the notification, tap delay.
    struct UserDraws: Equatable {
        var inAudience: Bool
        var opens: Bool
        var tapDelaySeconds: Double
        /// The probability `opens` was drawn with.
        var openProbability: Double = 0
        /// The push's open-probability hint, whole percent; -1: none (`users.openHint` absent).
        var hintPercent: Int8 = -1
    }

    /// The user draws of device `d` for campaign `c` (audience share `share`).
    func user(_ d: DeviceID, campaign c: CampaignID, audienceShare share: Double, isIOS: Bool, segment: Int) -> UserDraws {
        let base = isIOS ? openIOS[segment] : openAndroid[segment]
        var p = base
        var hint: Int8 = -1
        if let openHint {
            p = openProbability(d, campaign: c, base: base, model: openHint)
            hint = hintPercent(d, campaign: c, probability: p, model: openHint)
        }
        rng.reseed(StreamSeed.derive(masterSeed: runSeed, entity: UInt64(d.rawValue) | UInt64(c.rawValue) << 32, purpose: purposeUser))
        let inAudience = rng.bernoulli(share)
        let opens = rng.bernoulli(p)
        let delay = tapDelay.sample(rng, clampedTo: 0...SampledBounds.tapDelaySecondsMax)
        return UserDraws(inAudience: inAudience, opens: opens, tapDelaySeconds: delay, openProbability: p, hintPercent: hint)
    }

    /// Whether device `d` is in campaign `c`'s audience (the first draw of `user`).
    @inline(__always)
    func inAudience(_ d: DeviceID, campaign c: CampaignID, audienceShare share: Double) -> Bool {
        if share >= 1 { return true }
        rng.reseed(StreamSeed.derive(masterSeed: runSeed, entity: UInt64(d.rawValue) | UInt64(c.rawValue) << 32, purpose: purposeUser))
        return rng.bernoulli(share)
    }

    /// Launch + render time of device `d` for campaign `c`, seconds.
    func renderSeconds(_ d: DeviceID, campaign c: CampaignID) -> Double {
        rng.reseed(StreamSeed.derive(masterSeed: runSeed, entity: UInt64(d.rawValue) | UInt64(c.rawValue) << 32, purpose: purposeRender))
        return render.sample(rng, clampedTo: 0...SampledBounds.renderSecondsMax)
    }

    /// A stream for one-off draws of an entity (delivery latency, OS holds, job delays), reseeded.
    func stream(entity: UInt64, purpose: UInt64) -> RandomStream {
        rng.reseed(StreamSeed.derive(masterSeed: runSeed, entity: entity, purpose: purpose))
        return rng
    }
}
