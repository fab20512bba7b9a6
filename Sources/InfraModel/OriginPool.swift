import SimKernel
import Stochastic

/// How the origin took a job.
package enum OriginAdmission: UInt8, Sendable {
    /// A worker was free: service started now.
    case started
    /// All workers busy: the job waits in the FIFO queue.
    case queued
    /// Queue full: the origin answers 503 at once.
    case rejected
}

/// The origin: `c` identical workers, a FIFO queue bounded at `queueMax`, service times drawn
/// from a ``Sampler`` (an M/G/c/c+K station under Poisson arrivals). Arrivals that find the queue
/// full are rejected (HTTP 503).
///
/// Jobs are upstream fetches. Service completion is the kernel event
/// ``InfraEvent/originServiceDone(_:)`` of the job; pass its fetch to ``serviceDone(_:kernel:)``.
struct OriginPool {
    let workers: Int
    let queueMax: Int
    private let serviceSampler: Sampler
    private let rng: RandomStream

    package private(set) var busy: Int = 0
    private var queueJobs: [FetchID]
    private var queueArrivalTicks: [Int64]
    private var queueHead: Int = 0
    package private(set) var queueLength: Int = 0

    /// Jobs submitted / started / completed / rejected (503) since creation.
    package private(set) var arrivals: UInt64 = 0
    package private(set) var started: UInt64 = 0
    package private(set) var completedJobs: UInt64 = 0
    package private(set) var rejected: UInt64 = 0
    /// Jobs that had to wait, and their total wait in seconds.
    package private(set) var waitedJobs: UInt64 = 0
    package private(set) var totalWaitSeconds: Double = 0
    package private(set) var queueLengthMax: Int = 0

    /// The job started by the last ``serviceDone(_:kernel:)`` (from the queue), or nil, and its wait.
    private(set) var lastStartedFromQueue: FetchID? = nil
    package private(set) var lastStartedWaitTicks: Int64 = 0

    /// The origin's counters as the world reports them (``InfraWorld/originCounters``).
    private(set) var counters = OriginCounters()

    /// - Parameters:
    ///   - serviceSampler: service time in seconds (draws are clamped to [0, 1e6 s]).
    ///   - rng: the origin's stream, keyed by the owner as (seed, origin, "origin.service").
    init(workers: Int, queueMax: Int, serviceSampler: Sampler, rng: RandomStream) {
        precondition(workers >= 1 && queueMax >= 0)
        self.workers = workers
        self.queueMax = queueMax
        self.serviceSampler = serviceSampler
        self.rng = rng
        queueJobs = [FetchID](repeating: FetchID(rawValue: 0), count: max(queueMax, 1))
        queueArrivalTicks = [Int64](repeating: 0, count: max(queueMax, 1))
    }

    /// Offer `job` to the origin now.
    /// - Complexity: O(log p) (one kernel schedule when a worker is free), else O(1).
    mutating func submit(job: FetchID, kernel: inout Kernel) throws(KernelError) -> OriginAdmission {
        arrivals += 1
        counters.requests += 1
        defer { counters.queueLengthMax = max(counters.queueLengthMax, queueLength) }
        if busy < workers {
            try startService(job, kernel: &kernel)
            return .started
        }
        if queueLength < queueMax {
            let i = (queueHead + queueLength) % queueJobs.count
            queueJobs[i] = job
            queueArrivalTicks[i] = kernel.now.ticks
            queueLength += 1
            queueLengthMax = max(queueLengthMax, queueLength)
            return .queued
        }
        rejected += 1
        counters.rejected503 += 1
        return .rejected
    }

    /// Handle the service-done event of `job`: frees the worker and starts the next queued job
    /// (see ``lastStartedFromQueue``).
    mutating func serviceDone(_ job: FetchID, kernel: inout Kernel) throws(KernelError) {
        busy -= 1
        completedJobs += 1
        lastStartedFromQueue = nil
        if queueLength > 0 {
            let job = queueJobs[queueHead]
            let wait = kernel.now.ticks - queueArrivalTicks[queueHead]
            queueHead = (queueHead + 1) % queueJobs.count
            queueLength -= 1
            waitedJobs += 1
            totalWaitSeconds += Double(wait) / 1e6
            counters.waitedRequests += 1
            counters.totalWaitSeconds += Double(wait) / 1e6
            lastStartedFromQueue = job
            lastStartedWaitTicks = wait
            try startService(job, kernel: &kernel)
        }
    }

    /// The origin answered a fetch with `bytes` (a 304 when `notModified`).
    mutating func noteAnswer(bytes: Int64, notModified: Bool) {
        if notModified { counters.notModified += 1 }
        counters.served += 1
        counters.bytesServed += UInt64(bytes)
    }

    private mutating func startService(_ job: FetchID, kernel: inout Kernel) throws(KernelError) {
        busy += 1
        started += 1
        let ticks = sampledTicks(serviceSampler.sample(rng))
        try kernel.schedule(InfraEvent.originServiceDone(job), after: SimDuration(ticks: ticks))
    }
}
