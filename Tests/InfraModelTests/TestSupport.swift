import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

/// Test-side event kinds (below ``InfraEventKind/range``, so they never collide with the model's).
enum TestKind {
    static let arrival = EventKind(0x0001)
    static let reply = EventKind(0x0002)
    static let cancel = EventKind(0x0003)
}

/// Two-sided Student-t quantile at 99.9% (alpha = 0.001) for `df` degrees of freedom: exact
/// table values for the df we use, normal 3.2905 for df ≥ 1000 (Abramowitz & Stegun 26.7).
func t999(df: Int) -> Double {
    let table: [Int: Double] = [9: 4.781, 19: 3.883, 29: 3.659, 39: 3.551, 49: 3.496, 99: 3.390, 199: 3.340]
    if let v = table[df] { return v }
    precondition(df >= 1000, "no t quantile tabulated for df=\(df)")
    return 3.2905
}

/// Batch means: split `xs` into `batches` equal consecutive batches; returns (grand mean,
/// half-width of the 99.9% t interval of the batch means).
func batchMeans(_ xs: [Double], batches: Int) -> (mean: Double, halfWidth: Double) {
    let m = xs.count / batches
    var means: [Double] = []
    for b in 0..<batches {
        var s = 0.0
        for i in (b * m)..<((b + 1) * m) { s += xs[i] }
        means.append(s / Double(m))
    }
    let mean = means.reduce(0, +) / Double(batches)
    let v = means.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(batches - 1)
    return (mean, t999(df: batches - 1) * (v / Double(batches)).squareRoot())
}

/// Drives an `InfraWorld`: scheduled arrivals issue `requests[payload]`; replies (and the
/// results of cancels) are recorded in order of completion.
struct Driver: EventHandler {
    var world: InfraWorld
    var requests: [FetchRequest] = []
    var results: [FetchResult] = []
    /// Result index per request (payload tag), -1 until replied or cancelled.
    var resultOfRequest: [Int] = []
    var replyTimes: [SimTime] = []
    /// World request id per request, once issued.
    var requestIDs: [RequestID?] = []
    /// Requests whose cancel found the reply already on its way (`cancel` returned nil).
    var cancelsTooLate: [Int] = []

    init(world: InfraWorld) { self.world = world }

    /// Schedule request `r` to be issued at `time`.
    mutating func add(_ r: FetchRequest, at time: SimTime, kernel: inout Kernel) throws {
        var r = r
        r.replyKind = TestKind.reply
        r.replyTag = UInt32(requests.count)
        try kernel.schedule(at: time, kind: TestKind.arrival, target: 0, payload: UInt64(requests.count))
        requests.append(r)
        resultOfRequest.append(-1)
        requestIDs.append(nil)
    }

    /// Cancel request `index` (the order of `add`) at `time`.
    mutating func cancel(_ index: Int, at time: SimTime, kernel: inout Kernel) throws {
        try kernel.schedule(at: time, kind: TestKind.cancel, target: 0, payload: UInt64(index))
    }

    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        if InfraEventKind.range.contains(event.kind.rawValue) {
            try world.handle(event, in: &kernel)
            return
        }
        switch event.kind {
        case TestKind.arrival:
            requestIDs[Int(event.payload)] = try world.fetch(requests[Int(event.payload)], kernel: &kernel)
        case TestKind.cancel:
            let index = Int(event.payload)
            guard let id = requestIDs[index], resultOfRequest[index] == -1 else {
                return XCTFail("cancel of request \(index), which is not in flight")
            }
            if let r = try world.cancel(id, kernel: &kernel) {
                resultOfRequest[index] = results.count
                results.append(r)
                replyTimes.append(kernel.now)
            } else {
                cancelsTooLate.append(index)
            }
        case TestKind.reply:
            let (tag, id) = InfraWorld.decodeReply(event.payload)
            XCTAssertEqual(resultOfRequest[Int(tag)], -1, "two replies for request \(tag)")
            resultOfRequest[Int(tag)] = results.count
            results.append(world.result(id))
            replyTimes.append(kernel.now)
            world.release(id)
        default:
            XCTFail("unexpected event \(event)")
        }
    }
}

/// A ``Driver`` that also purges surrogate key 0 at each event of kind ``purgeKind`` (target 0).
struct PurgeDriver: EventHandler {
    static let purgeKind = EventKind(0x00F0)
    var inner: Driver
    mutating func handle(_ e: Event, in k: inout Kernel) throws {
        if e.kind == PurgeDriver.purgeKind { try inner.world.purge(surrogateKey: 0, kernel: &k) } else { try inner.handle(e, in: &k) }
    }
}

func request(object: UInt32, region: UInt32 = 0, network: NetworkClass = .lte, entity: UInt64,
             timeout: SimDuration = .seconds(30)) -> FetchRequest {
    FetchRequest(objectID: ObjectID(rawValue: object), regionID: RegionID(rawValue: region), networkClass: network, entity: entity,
                 timeout: timeout, replyKind: TestKind.reply, replyTarget: 0)
}

/// A world with deterministic latencies, no failures, for logic tests: every network class
/// has RTT `rttSeconds`, unlimited-ish unshared throughput, edge processing 0, hops constant.
func deterministicConfig(pops: Int = 1, shields: Int = 1, rttSeconds: Double = 0, hopSeconds: Double = 0,
                         originSeconds: Double = 0, originServiceSeconds: Double = 0) -> InfraConfig {
    var c = InfraConfig()
    for cls in NetworkClass.allCases {
        c.networks[cls] = NetworkProfile(rttSeconds: .constant(value: rttSeconds),
                                         downlinkBitsPerSecond: .constant(value: 1e12),
                                         failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: 0)
    }
    c.topology = TopologyConfig(popCount: pops, shieldCount: shields,
                                regions: (0..<pops).map { RegionConfig(popIndex: $0, pathRttSeconds: 0) })
    c.connectionSetup = ConnectionSetupConfig(dnsRoundTrips: 0, tcpRoundTrips: 0, tlsRoundTrips: 0)
    c.tiers.edgeProcessingSeconds = .constant(value: 0)
    c.tiers.edgeToShieldSeconds = .constant(value: hopSeconds)
    c.tiers.toOriginSeconds = .constant(value: originSeconds)
    c.origin = OriginConfig(workers: 1_000, serviceSeconds: .constant(value: originServiceSeconds), queueMax: 1_000)
    c.purgePropagationSeconds = .constant(value: 0.150)
    c.warmPropagationSeconds = .constant(value: 1)
    return c
}

/// Check node and tier conservation laws on a drained world.
func assertConservation(_ w: InfraWorld, file: StaticString = #filePath, line: UInt = #line) {
    for n in 0..<w.nodeCount {
        let c = w.counters[n]
        XCTAssertEqual(c.requests, c.freshHits + c.staleHits + c.misses, "node \(n): requests != hits + misses", file: file, line: line)
        XCTAssertEqual(c.misses, c.collapsed + c.upstreamFetches, "node \(n): misses != collapsed + upstream", file: file, line: line)
    }
    XCTAssertEqual(w.originCounters.requests, w.originCounters.served + w.originCounters.rejected503,
                   "origin requests != served + 503", file: file, line: line)
    let edge = w.tierCounters(.edge), shield = w.tierCounters(.shield)
    XCTAssertEqual(edge.requests, edge.deviceRequests - edge.placeholderRedirects + edge.warmRequests,
                   "edge requests != device lookups + warm lookups", file: file, line: line)
    if w.config.tiers.tieringEnabled {
        XCTAssertEqual(shield.requests, edge.upstreamFetches + edge.revalidations + shield.warmRequests,
                       "shield requests != edge fetches + warm lookups", file: file, line: line)
        XCTAssertEqual(w.originCounters.requests, shield.upstreamFetches + shield.revalidations, "origin requests != shield fetches", file: file, line: line)
    } else {
        XCTAssertEqual(w.originCounters.requests, edge.upstreamFetches + edge.revalidations, "origin requests != edge fetches", file: file, line: line)
    }
}
