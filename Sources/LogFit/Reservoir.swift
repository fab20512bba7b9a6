import Stochastic

/// A uniform random sample of at most `capacity` values from a stream of any length (Vitter's
/// algorithm R), each value flagged as observed or right-censored. Memory is O(capacity); the
/// sample depends only on the stream's order and the seed.
package struct Reservoir: Sendable {
    package let capacity: Int
    /// Values offered so far.
    package private(set) var seen = 0
    package private(set) var values: [Double] = []
    package private(set) var censored: [Bool] = []
    private let seed: UInt64

    package init(capacity: Int, seed: UInt64) {
        self.capacity = capacity
        self.seed = seed
    }

    /// Offers one value. The replacement index is drawn from a stream derived from (seed, seen).
    package mutating func add(_ value: Double, censored isCensored: Bool = false) {
        seen += 1
        if values.count < capacity {
            values.append(value)
            censored.append(isCensored)
            return
        }
        let j = Int(StreamSeed.derive(masterSeed: seed, entity: UInt64(seen), purpose: 0) % UInt64(seen))
        if j < capacity {
            values[j] = value
            censored[j] = isCensored
        }
    }

    /// The sample split into observed and censored values (each transformed by `map`, which
    /// returns nil to leave a value out).
    func split(_ map: (Double, Bool) -> Double? = { v, _ in v }) -> (observed: [Double], censored: [Double]) {
        var o: [Double] = [], c: [Double] = []
        for (v, isCensored) in zip(values, censored) {
            guard let x = map(v, isCensored), x.isFinite, x > 0 else { continue }
            if isCensored { c.append(x) } else { o.append(x) }
        }
        return (o, c)
    }
}
