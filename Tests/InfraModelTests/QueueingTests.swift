import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

/// Poisson arrivals into an `OriginPool`; records each job's wait in job order.
private struct OriginDriver: EventHandler {
    var pool: OriginPool
    let interarrival: Sampler
    let rng: RandomStream
    var arrivalTicks: [Int64] = []
    var waitTicks: [Int64] = []
    let jobs: Int

    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        if case .originServiceDone(let job)? = InfraEvent(event) {
            try pool.serviceDone(job, kernel: &kernel)
            if let j = pool.lastStartedFromQueue { waitTicks[j.index] = pool.lastStartedWaitTicks }
            return
        }
        XCTAssertEqual(event.kind, TestKind.arrival, "unexpected \(event)")
        let job = FetchID(arrivalTicks.count)
        arrivalTicks.append(kernel.now.ticks)
        waitTicks.append(-1)
        if try pool.submit(job: job, kernel: &kernel) == .started { waitTicks[job.index] = 0 }
        if arrivalTicks.count < jobs {
            try kernel.schedule(after: .seconds(interarrival.sample(rng)), kind: TestKind.arrival, target: 0)
        }
    }
}

/// Poisson arrivals of fixed-size flows on one `SharedLinks` link; records sojourn times.
private struct LinkDriver: EventHandler {
    var links: SharedLinks
    let interarrival: Sampler
    let rng: RandomStream
    let bits: Double
    let flows: Int
    var startTicks: [Int64] = []
    var sojournSeconds: [Double] = []

    mutating func handle(_ event: Event, in kernel: inout Kernel) throws {
        if case .linkCompletion(let link)? = InfraEvent(event) {
            try links.handleCompletion(link: link, kernel: &kernel)
            for f in links.completed {
                sojournSeconds[Int(f)] = Double(kernel.now.ticks - startTicks[Int(f)]) / 1e6
            }
            return
        }
        XCTAssertEqual(event.kind, TestKind.arrival, "unexpected \(event)")
        let id = UInt32(startTicks.count)
        startTicks.append(kernel.now.ticks)
        sojournSeconds.append(-1)
        try links.start(flow: id, link: LinkID(rawValue: 0), bits: bits, kernel: &kernel)
        if startTicks.count < flows {
            try kernel.schedule(after: .seconds(interarrival.sample(rng)), kind: TestKind.arrival, target: 0)
        }
    }
}

final class QueueingTests: XCTestCase {
    /// Erlang C probability of waiting for c servers and offered load a (erlangs).
    func erlangC(servers c: Int, load a: Double) -> Double {
        var term = 1.0, sum = 1.0 // sum_{k<c} a^k/k!
        for k in 1..<c { term *= a / Double(k); sum += term }
        let last = term * a / Double(c) * Double(c) / (Double(c) - a) // a^c/c! * c/(c-a)
        return last / (sum + last)
    }

    /// Runs `jobs` Poisson(λ) arrivals through a pool with service `service`; returns per-job
    /// waits in seconds after dropping the first `warmup` jobs.
    private func simulatePool(workers: Int, lambda: Double, service: Distribution, jobs: Int, warmup: Int,
                              seed: UInt64) throws -> [Double] {
        let pool = OriginPool(workers: workers, queueMax: 1_000_000, serviceSampler: try Sampler(service),
                              rng: RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.service")))
        var d = OriginDriver(pool: pool, interarrival: try Sampler(.exponential(mean: 1 / lambda)),
                             rng: RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.arrivals")), jobs: jobs)
        var k = Kernel()
        try k.schedule(at: .zero, kind: TestKind.arrival, target: 0)
        _ = try k.run(&d)
        XCTAssertFalse(d.waitTicks.contains(-1), "seed \(seed): a job never started")
        XCTAssertEqual(d.pool.completedJobs, UInt64(jobs), "seed \(seed)")
        return d.waitTicks.dropFirst(warmup).map { Double($0) / 1e6 }
    }

    /// M/M/10 at A = 8 erlangs (μ = 1): P(wait) = C(10, 8) = 0.409, E[W_q] = C/(cμ − λ) = 0.2046/μ.
    /// Bounds: 99.9% batch-means t intervals (40 batches of 5 000 jobs, batches far longer than
    /// the queue's relaxation time); the integer-microsecond clock biases waits by < 1 µs.
    func testOriginPoolMatchesErlangC() throws {
        let seed: UInt64 = 101
        let pw = erlangC(servers: 10, load: 8)
        XCTAssertEqual(pw, 0.409, accuracy: 0.0005)
        let wq = pw / (10 - 8)
        XCTAssertEqual(wq, 0.2046, accuracy: 0.00005)
        let waits = try simulatePool(workers: 10, lambda: 8, service: .exponential(mean: 1), jobs: 202_000, warmup: 2_000, seed: seed)
        let waited = batchMeans(waits.map { $0 > 0 ? 1 : 0 }, batches: 40)
        let mean = batchMeans(waits, batches: 40)
        XCTAssertLessThanOrEqual(abs(waited.mean - pw), waited.halfWidth, "seed \(seed): P(wait) \(waited.mean) ± \(waited.halfWidth) vs \(pw)")
        XCTAssertLessThanOrEqual(abs(mean.mean - wq), mean.halfWidth, "seed \(seed): E[Wq] \(mean.mean) ± \(mean.halfWidth) vs \(wq)")
    }

    /// M/M/1 and M/D/1 at ρ = 0.8 (μ = 1): Pollaczek–Khinchine E[W_q] = λE[S²]/(2(1−ρ)):
    /// exponential service 0.8·2/0.4 = 4, deterministic 0.8·1/0.4 = 2. Same batch-means bound.
    func testSingleServerMatchesPollaczekKhinchine() throws {
        for (service, es2, seed) in [(Distribution.exponential(mean: 1), 2.0, UInt64(202)), (.constant(value: 1), 1.0, 203)] {
            let lambda = 0.8
            let expected = lambda * es2 / (2 * (1 - lambda))
            let waits = try simulatePool(workers: 1, lambda: lambda, service: service, jobs: 402_000, warmup: 2_000, seed: seed)
            let bm = batchMeans(waits, batches: 40)
            XCTAssertLessThanOrEqual(abs(bm.mean - expected), bm.halfWidth,
                                     "seed \(seed) \(service): E[Wq] \(bm.mean) ± \(bm.halfWidth) vs \(expected)")
        }
    }

    func testBoundedQueueRejects() throws {
        var pool = OriginPool(workers: 2, queueMax: 3, serviceSampler: try Sampler(.constant(value: 1)),
                              rng: RandomStream(seed: 1))
        var k = Kernel()
        var admissions: [OriginAdmission] = []
        for j in 0..<7 { admissions.append(try pool.submit(job: FetchID(j), kernel: &k)) }
        XCTAssertEqual(admissions, [.started, .started, .queued, .queued, .queued, .rejected, .rejected])
        XCTAssertEqual(pool.rejected, 2)
        XCTAssertEqual(pool.queueLength, 3)
    }

    /// Two flows sharing a link: both get C/2 until the shorter ends, then the longer gets C.
    func testProcessorSharingExactTimes() throws {
        struct D: EventHandler {
            var links: SharedLinks
            var done: [UInt32: SimTime] = [:]
            mutating func handle(_ e: Event, in k: inout Kernel) throws {
                if e.kind == TestKind.arrival {
                    try links.start(flow: UInt32(e.payload), link: LinkID(rawValue: 0), bits: e.payload == 0 ? 1_000 : 3_000, kernel: &k)
                } else {
                    try links.handleCompletion(link: LinkID(rawValue: e.target), kernel: &k)
                    for f in links.completed { done[f] = k.now }
                }
            }
        }
        var d = D(links: SharedLinks(capacitiesBitsPerSecond: [1_000]))
        var k = Kernel()
        try k.schedule(at: .zero, kind: TestKind.arrival, target: 0, payload: 0)
        try k.schedule(at: .zero, kind: TestKind.arrival, target: 0, payload: 1)
        _ = try k.run(&d)
        // Flow 0: 1000 bits at 500 b/s → 2 s. Flow 1: 1000 bits by 2 s, 2000 left at 1000 b/s → 4 s.
        XCTAssertEqual(d.done[0], .seconds(2))
        XCTAssertEqual(d.done[1], .seconds(4))
    }

    /// M/G/1-PS: the mean transfer time of a flow of s bits is s/(C(1−ρ)) under Poisson arrivals
    /// (insensitive to the size distribution). ρ = 0.7, s = 1 Mbit, C = 10 Mbit/s → 0.333 s.
    /// Bound: 99.9% batch means (40 batches × 5 000 flows); event times are rounded up to the
    /// next microsecond, a bias below 1e-5 of the mean, negligible.
    func testLinkMatchesProcessorSharing() throws {
        let seed: UInt64 = 303
        let capacity = 10e6, bits = 1e6, rho = 0.7
        let lambda = rho * capacity / bits
        let flows = 202_000
        var d = LinkDriver(links: SharedLinks(capacitiesBitsPerSecond: [capacity]),
                           interarrival: try Sampler(.exponential(mean: 1 / lambda)),
                           rng: RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.flows")),
                           bits: bits, flows: flows)
        var k = Kernel()
        try k.schedule(at: .zero, kind: TestKind.arrival, target: 0)
        _ = try k.run(&d)
        XCTAssertFalse(d.sojournSeconds.contains(-1), "seed \(seed)")
        let expected = bits / (capacity * (1 - rho))
        let bm = batchMeans(Array(d.sojournSeconds.dropFirst(2_000)), batches: 40)
        XCTAssertLessThanOrEqual(abs(bm.mean - expected), bm.halfWidth, "seed \(seed): \(bm.mean) ± \(bm.halfWidth) vs \(expected)")
    }
}
