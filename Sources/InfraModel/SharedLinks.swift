import SimKernel

/// Bottleneck links shared by the flows active on them, modelled as egalitarian processor
/// sharing (PS): with `n` active flows each receives `C/n` bits per second.
///
/// Implementation (virtual time / attained service): every link keeps `V`, the service in bits
/// that any flow continuously active on it has received since the link last went busy.
/// `dV/dt = C/n(t)`. A flow of `b` bits starting when the link is at `V₀` finishes when
/// `V = V₀ + b`, its *finish tag*; flows finish in tag order, so each link keeps a binary min-heap
/// of tags and one pending completion event (cancelled and rescheduled when `n` changes).
/// The completion event of link `l` is ``InfraEvent/linkCompletion(_:)``.
/// Start, removal and completion are O(log n); nothing is allocated per flow once the heaps and
/// the flow index have grown to their working size.
///
/// Flow ids are caller-chosen `UInt32`s (InfraWorld uses request ids); a flow id is on at most
/// one link at a time.
package struct SharedLinks {
    package let linkCount: Int

    private var capacityBitsPerSecond: [Double]
    private var virtualBits: [Double]
    private var lastUpdateTicks: [Int64]
    private var heapTags: [[Double]]
    private var heapFlows: [[UInt32]]
    private var pending: [EventHandle?]
    private var flowHeapPosition: [Int32] = []
    private var flowLink: [UInt32] = []

    /// Flows finished by the last ``handleCompletion(link:kernel:)`` call (valid until the next).
    package private(set) var completed: [UInt32] = []

    /// - Parameter capacitiesBitsPerSecond: capacity of each link (> 0).
    package init(capacitiesBitsPerSecond: [Double]) {
        precondition(capacitiesBitsPerSecond.allSatisfy { $0 > 0 && $0.isFinite })
        linkCount = capacitiesBitsPerSecond.count
        capacityBitsPerSecond = capacitiesBitsPerSecond
        virtualBits = [Double](repeating: 0, count: linkCount)
        lastUpdateTicks = [Int64](repeating: 0, count: linkCount)
        heapTags = [[Double]](repeating: [], count: linkCount)
        heapFlows = [[UInt32]](repeating: [], count: linkCount)
        pending = [EventHandle?](repeating: nil, count: linkCount)
        completed.reserveCapacity(64)
    }

    /// Number of flows active on `link`.
    package func activeFlows(link: LinkID) -> Int { heapTags[link.index].count }

    /// Capacity of `link` in bits per second.
    package func capacity(link: LinkID) -> Double { capacityBitsPerSecond[link.index] }

    /// Start flow `flow` of `bits` bits on `link` now.
    /// - Complexity: O(log n).
    package mutating func start(flow: UInt32, link: LinkID, bits: Double, kernel: inout Kernel) throws(KernelError) {
        let l = link.index
        advance(l, nowTicks: kernel.now.ticks)
        let f = Int(flow)
        if f >= flowHeapPosition.count {
            let n = max(f + 1, flowHeapPosition.count * 2)
            flowHeapPosition.append(contentsOf: repeatElement(-1, count: n - flowHeapPosition.count))
            flowLink.append(contentsOf: repeatElement(0, count: n - flowLink.count))
        }
        precondition(flowHeapPosition[f] < 0, "flow \(flow) already active")
        flowLink[f] = link.rawValue
        heapTags[l].append(virtualBits[l] + max(bits, 0))
        heapFlows[l].append(flow)
        flowHeapPosition[f] = Int32(heapTags[l].count - 1)
        siftUp(l, heapTags[l].count - 1)
        try reschedule(l, kernel: &kernel)
    }

    /// Whether `flow` is currently on a link.
    package func isActive(flow: UInt32) -> Bool {
        Int(flow) < flowHeapPosition.count && flowHeapPosition[Int(flow)] >= 0
    }

    /// Remove an active flow before it finishes (timeout, abort); the flows left on its link
    /// speed up from now.
    /// - Returns: the bits the flow still had to receive, or nil if it was not active (then
    ///   nothing changes).
    /// - Complexity: O(log n).
    @discardableResult
    package mutating func remove(flow: UInt32, kernel: inout Kernel) throws(KernelError) -> Double? {
        guard isActive(flow: flow) else { return nil }
        let l = Int(flowLink[Int(flow)])
        advance(l, nowTicks: kernel.now.ticks)
        let position = Int(flowHeapPosition[Int(flow)])
        let remaining = max(0, heapTags[l][position] - virtualBits[l])
        removeAt(l, position)
        try reschedule(l, kernel: &kernel)
        return remaining
    }

    /// Handle the completion event of `link`: finished flows are left in ``completed``.
    /// - Complexity: O(k log n) for k finished flows.
    package mutating func handleCompletion(link: LinkID, kernel: inout Kernel) throws(KernelError) {
        let l = link.index
        pending[l] = nil
        completed.removeAll(keepingCapacity: true)
        advance(l, nowTicks: kernel.now.ticks)
        // The event time is rounded up to the next tick, so V has reached the tag up to
        // floating-point error; the tolerance is relative to V's magnitude.
        let tolerance = max(1e-6, virtualBits[l] * 1e-12)
        while let top = heapTags[l].first, top <= virtualBits[l] + tolerance {
            let flow = heapFlows[l][0]
            removeAt(l, 0)
            completed.append(flow)
        }
        try reschedule(l, kernel: &kernel)
    }

    @inline(__always)
    private mutating func advance(_ l: Int, nowTicks: Int64) {
        let n = heapTags[l].count
        if n == 0 {
            virtualBits[l] = 0 // idle: restart V near zero to keep precision
        } else {
            let dt = Double(nowTicks - lastUpdateTicks[l]) / 1e6
            virtualBits[l] += capacityBitsPerSecond[l] * dt / Double(n)
        }
        lastUpdateTicks[l] = nowTicks
    }

    private mutating func reschedule(_ l: Int, kernel: inout Kernel) throws(KernelError) {
        if let h = pending[l] {
            kernel.cancel(h)
            pending[l] = nil
        }
        guard let top = heapTags[l].first else { return }
        let n = Double(heapTags[l].count)
        let seconds = max(0, top - virtualBits[l]) * n / capacityBitsPerSecond[l]
        let ticks = Int64((min(seconds, 1e9) * 1e6).rounded(.up))
        pending[l] = try kernel.scheduleCancellable(InfraEvent.linkCompletion(LinkID(rawValue: UInt32(l))), at: SimTime(ticks: kernel.now.ticks + ticks))
    }

    private mutating func removeAt(_ l: Int, _ i: Int) {
        let last = heapTags[l].count - 1
        let removed = heapFlows[l][i]
        flowHeapPosition[Int(removed)] = -1
        if i != last {
            heapTags[l][i] = heapTags[l][last]
            heapFlows[l][i] = heapFlows[l][last]
            flowHeapPosition[Int(heapFlows[l][i])] = Int32(i)
        }
        heapTags[l].removeLast()
        heapFlows[l].removeLast()
        if i < heapTags[l].count {
            siftDown(l, i)
            siftUp(l, i)
        }
    }

    private mutating func siftUp(_ l: Int, _ start: Int) {
        withHeap(l) { tags, flows, position in
            var i = start
            while i > 0 {
                let p = (i - 1) / 2
                if tags[p] <= tags[i] { break }
                SharedLinks.swapAt(i, p, tags, flows, position)
                i = p
            }
        }
    }

    private mutating func siftDown(_ l: Int, _ start: Int) {
        withHeap(l) { tags, flows, position in
            var i = start
            let n = tags.count
            while true {
                let a = 2 * i + 1, b = a + 1
                var m = i
                if a < n && tags[a] < tags[m] { m = a }
                if b < n && tags[b] < tags[m] { m = b }
                if m == i { return }
                SharedLinks.swapAt(i, m, tags, flows, position)
                i = m
            }
        }
    }

    /// Runs `body` on link `l`'s heap (tags and flows) and the flow index as buffers: a sift then
    /// checks each array's uniqueness once, not at every swap.
    @inline(__always)
    private mutating func withHeap(_ l: Int, _ body: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<UInt32>,
                                                     UnsafeMutableBufferPointer<Int32>) -> Void) {
        heapTags[l].withUnsafeMutableBufferPointer { tags in
            heapFlows[l].withUnsafeMutableBufferPointer { flows in
                flowHeapPosition.withUnsafeMutableBufferPointer { position in
                    body(tags, flows, position)
                }
            }
        }
    }

    @inline(__always)
    private static func swapAt(_ i: Int, _ j: Int, _ tags: UnsafeMutableBufferPointer<Double>,
                               _ flows: UnsafeMutableBufferPointer<UInt32>, _ position: UnsafeMutableBufferPointer<Int32>) {
        tags.swapAt(i, j)
        flows.swapAt(i, j)
        position[Int(flows[i])] = Int32(i)
        position[Int(flows[j])] = Int32(j)
    }
}
