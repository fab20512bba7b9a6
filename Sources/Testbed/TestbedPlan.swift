import Foundation
import Stochastic
import InfraModel
import PushModel
import Experiments
import ScenarioFormat
import Stochastic

/// The size of a testbed run (`--devices`, `--seconds`, `--replications`).
package struct TestbedOptions: Sendable, Equatable {
    package var devices: Int
    package var seconds: Double
    /// Model replications.
    package var replications: Int
    package var seed: UInt64?
    package static let devicesRange = 1...2_000
    package static let secondsRange = 20.0...900.0

    package init(devices: Int = 200, seconds: Double = 60, replications: Int = 5, seed: UInt64? = nil) {
        self.devices = devices
        self.seconds = seconds
        self.replications = replications
        self.seed = seed
    }
}

/// A scenario scaled down to what one machine can run for real, and the timeline both runs share.
///
/// The model runs exactly `scaled`; the testbed reproduces it with real software. What the
/// testbed cannot reproduce is switched off in `scaled` (so both sides still run the same
/// scenario) and listed in `adjustments`:
/// - the first campaign only; every device targeted; iOS Notification Service Extension pushes
///   (the real driver runs PreloadKit as an extension would; Android's and iOS's OS holds, Doze,
///   force-quit, Low Data Mode and Save-Data are not emulated);
/// - the timeline compressed into `seconds`: warm call at t = 1 s, creative swap (purge) at
///   t = 3 s, sends from t = 5 s spread over 35 % of the run, tap delays exponential with a mean of
///   15 % of the run (taps after the horizon are not made, on both sides);
/// - at most 3 PoPs (each an edge Varnish) and 2 shields, one region per PoP, no per-PoP
///   overrides; no background cache pressure; no placeholder redirects;
/// - links: RTT, downlink and segment loss per connection from the scenario's distributions and
///   loss probabilities (shaper), no failure or stall injection and no shared cell bottleneck (set
///   to 0 in the model too);
/// - edge processing: a 1 ms constant (loopback Varnish); warm and purge propagation: 10 ms
///   (the testbed calls every node directly).
package struct TestbedPlan: Sendable {
    package let original: ScenarioFile
    package let scaled: ScenarioFile
    package let options: TestbedOptions
    package let adjustments: [String]

    package static let warmAtSeconds = 1.0
    package static let swapAtSeconds = 3.0
    package static let sendStartSeconds = 5.0
    package static let sendWindowShare = 0.35
    package static let tapDelayMeanShare = 0.15
    package static let popsMax = 3
    package static let shieldsMax = 2
    package static let edgeProcessingSeconds = 0.001
    package static let propagationSeconds = 0.010

    package var campaign: CampaignConfig { scaled.world.campaigns[0] }
    package var infra: InfraConfig { scaled.world.infra }
    package var popCount: Int { infra.topology.popCount }
    package var shieldCount: Int { infra.tiers.tieringEnabled ? infra.topology.shieldCount : 0 }
    package var seed: UInt64 { scaled.run.seed }

    /// The shield PoP `pop` fetches through (InfraModel's default: `pop % shieldCount`).
    package func shield(ofPop pop: Int) -> Int { pop % max(1, infra.topology.shieldCount) }

    package init(scenario: ScenarioFile, options: TestbedOptions) throws(TestbedError) {
        guard TestbedOptions.devicesRange.contains(options.devices) else {
            throw .unsupportedScenario(path: "--devices", found: "\(options.devices)", expected: "devices in \(TestbedOptions.devicesRange)")
        }
        guard TestbedOptions.secondsRange.contains(options.seconds) else {
            throw .unsupportedScenario(path: "--seconds", found: "\(options.seconds)", expected: "seconds in 20...900")
        }
        guard let first = scenario.world.campaigns.first else {
            throw .unsupportedScenario(path: "campaigns", found: "none", expected: "at least one campaign")
        }
        guard first.preStage else {
            throw .unsupportedScenario(path: "campaigns[0].preStage", found: "false", expected: "true (the testbed compares pre-staging)")
        }
        guard first.payloadForm == .inline else {
            // The testbed's origin serves assets only, and its devices are sent inline manifests.
            throw .unsupportedScenario(path: "campaigns[0].payloadForm", found: "\"\(first.payloadForm.rawValue)\"",
                                       expected: "\"inline\" (the testbed sends inline manifests only; run the other forms in the simulator)")
        }
        var notes: [String] = []
        var s = scenario.resolved
        let t = options.seconds
        var w = s.world
        if w.campaigns.count > 1 { notes.append("only the first campaign (\(first.name)) of \(w.campaigns.count) is run") }

        // Devices.
        w.population.devices = options.devices
        if w.population.iosShare != 1 { notes.append("every device is an iOS device (iosShare \(w.population.iosShare) → 1)") }
        w.population.iosShare = 1
        w.population.iosForceQuitShare = 0
        w.population.lowDataModeShare = 0
        w.population.saveDataShare = 0
        w.population.regionWeights = []
        w.population.regionNetworkMix = []
        w.population.preexistingStoreBytes = .constant(value: 0)

        // The campaign on a compressed timeline.
        var c = first
        c.audienceShare = 1
        c.iosPush = .alert
        if c.carouselIntervalSeconds != nil { notes.append("carousel pushes are sent as one push") }
        c.carouselIntervalSeconds = nil
        c.sendStartSeconds = Self.sendStartSeconds
        let rate = Double(options.devices) / (Self.sendWindowShare * t) * 60
        c.sendRatePerMinute = rate
        c.providerQuotaPerMinute = max(c.providerQuotaPerMinute, rate)
        if c.warm.mode != .none { c.warm.aheadSeconds = Self.sendStartSeconds - Self.warmAtSeconds }
        if c.creativeSwap != nil {
            c.creativeSwap = CreativeSwapConfig(secondsBeforeSend: Self.sendStartSeconds - Self.swapAtSeconds, rewarmDelaySeconds: 0.5)
        }
        c.tokenLifetimeSeconds = max(c.tokenLifetimeSeconds, t * 2)
        w.campaigns = [c]
        w.users.tapDelaySeconds = .exponential(mean: Self.tapDelayMeanShare * t)
        notes.append("timeline compressed into \(Int(t)) s: warm at \(Int(Self.warmAtSeconds)) s, sends from \(Int(Self.sendStartSeconds)) s at \(Int(rate.rounded()))/min, tap delay exponential (mean \(Int(Self.tapDelayMeanShare * t)) s)")
        w.horizonSeconds = t

        // Infrastructure.
        var infra = w.infra
        let pops = min(infra.topology.popCount, Self.popsMax)
        let shields = min(infra.topology.shieldCount, Self.shieldsMax, pops)
        if pops != infra.topology.popCount || shields != infra.topology.shieldCount {
            notes.append("\(pops) PoP(s) and \(shields) shield(s) (scenario: \(infra.topology.popCount) and \(infra.topology.shieldCount))")
        }
        infra.topology = TopologyConfig(popCount: pops, shieldCount: shields, regions: [], popOverrides: [])
        for cls in NetworkClass.allCases {
            infra.networks[cls].failureProbability = 0
            infra.networks[cls].stallProbability = 0
            infra.networks[cls].sharedCapacityBitsPerSecond = 0
        }
        infra.edgeCache.background = .none
        infra.shieldCache.background = .none
        infra.tiers.edgeProcessingSeconds = .constant(value: Self.edgeProcessingSeconds)
        infra.warmPropagationSeconds = .constant(value: Self.propagationSeconds)
        infra.purgePropagationSeconds = .constant(value: Self.propagationSeconds)
        if infra.placeholder.enabled { notes.append("placeholder redirects are off") }
        infra.placeholder.enabled = false
        notes.append("no failure/stall injection and no shared cell bottleneck; background cache pressure off")
        w.infra = infra

        s.world = w
        s.run.replications = options.replications
        if let seed = options.seed { s.run.seed = seed }
        s.name = String((scenario.name + "-testbed").prefix(ScenarioFile.nameBytesMax))
        original = scenario
        scaled = s
        self.options = options
        adjustments = notes
    }

    /// The network classes devices are drawn from (positive weight in the mix), in class order.
    package var networkClasses: [NetworkClass] {
        let weights = scaled.world.population.networkMix.weights
        return NetworkClass.allCases.filter { weights[Int($0.rawValue)] > 0 }
    }
}
