import SimKernel

/// Errors of requests and calls into the model (not configuration errors).
package enum InfraError: Error, Equatable, CustomStringConvertible {
    case unknownObject(UInt32)
    case unknownRegion(UInt32)
    case unknownSurrogateKey(UInt32)
    case invalidTimeout(SimDuration)
    case requestsInFlightLimit(Int)
    case fetchesInFlightLimit(Int)
    case unknownEventKind(UInt16)
    case warmInPast(now: SimTime, requested: SimTime)

    package var description: String {
        switch self {
        case .unknownObject(let o): return "objectID \(o) is not in the catalogue"
        case .unknownRegion(let r): return "regionID \(r) is not configured"
        case .unknownSurrogateKey(let k): return "surrogate key \(k) is not used by any object"
        case .invalidTimeout(let t): return "timeout \(t.seconds) s, expected 0 < timeout <= 600 s"
        case .requestsInFlightLimit(let n): return "more than requestsInFlightMax = \(n) device requests in flight"
        case .fetchesInFlightLimit(let n): return "more than fetchesInFlightMax = \(n) upstream fetches in flight"
        case .unknownEventKind(let k): return "event kind 0x\(String(k, radix: 16)) is not an InfraModel kind"
        case .warmInPast(let now, let t): return "warm at \(t) is before now (\(now))"
        }
    }
}
