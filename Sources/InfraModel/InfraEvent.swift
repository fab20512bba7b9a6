import SimKernel

/// The kernel event kinds of this module (raw values 0x0100–0x01FF), for an outer handler that
/// shares the kernel: it routes every event whose `kind.rawValue` is in ``range`` to
/// ``InfraWorld/handle(_:in:)``. What each kind means is ``InfraEvent``.
@usableFromInline package enum InfraEventKind {
    @usableFromInline package static let range: ClosedRange<UInt16> = 0x0100...0x01FF
}

/// One event of this module, with its typed payload: what ``InfraWorld`` schedules for itself
/// and how it reads it back.
///
/// Encoding (`kind` raw value; `target`; `payload`), fixed so that a run's event trace is the
/// same number for number as it has always been:
///
///     0x0100 requestAtEdge(r)      r; 0        a device request reaches its PoP
///     0x0101 responseAtDevice(r)   r; 0        the response starts arriving at the device
///     0x0102 linkCompletion(l)     l; 0        processor-sharing completion on a shared link
///     0x0103 transferDone(r)       r; 0        the transfer reached the device's own rate cap
///     0x0104 requestTimeout(r)     r; 0        the request's timeout
///     0x0105 fetchAtParent(f)      f; 0        an upstream fetch reaches the parent tier
///     0x0106 fetchResponse(f)      f; 0        an upstream fetch's response is back at its node
///     0x0107 originServiceDone(f)  0; f        an origin worker finished fetch f
///     0x0108 warmAtNode(n, o)      n; o        a warm request for object o reaches node n
///     0x0109 backgroundRequest(n)  n; 0        one explicit background request at node n
///
/// Decoding (``init(_:)``) is the one place an event outside the module's kinds is refused.
enum InfraEvent: Equatable, Sendable, KernelEncodable {
    case requestAtEdge(RequestID)
    case responseAtDevice(RequestID)
    case linkCompletion(LinkID)
    case transferDone(RequestID)
    case requestTimeout(RequestID)
    case fetchAtParent(FetchID)
    case fetchResponse(FetchID)
    case originServiceDone(FetchID)
    case warmAtNode(NodeID, ObjectID)
    case backgroundRequest(NodeID)

    /// Raw kind numbers (see the table above).
    enum Kind {
        static let requestAtEdge: UInt16 = 0x0100
        static let responseAtDevice: UInt16 = 0x0101
        static let linkCompletion: UInt16 = 0x0102
        static let transferDone: UInt16 = 0x0103
        static let requestTimeout: UInt16 = 0x0104
        static let fetchAtParent: UInt16 = 0x0105
        static let fetchResponse: UInt16 = 0x0106
        static let originServiceDone: UInt16 = 0x0107
        static let warmAtNode: UInt16 = 0x0108
        static let backgroundRequest: UInt16 = 0x0109
    }

    /// The event `event` carries, or nil when its kind is not one of this module's.
    @inline(__always)
    init?(_ event: Event) {
        let t = event.target
        switch event.kind.rawValue {
        case Kind.requestAtEdge: self = .requestAtEdge(RequestID(rawValue: t))
        case Kind.responseAtDevice: self = .responseAtDevice(RequestID(rawValue: t))
        case Kind.linkCompletion: self = .linkCompletion(LinkID(rawValue: t))
        case Kind.transferDone: self = .transferDone(RequestID(rawValue: t))
        case Kind.requestTimeout: self = .requestTimeout(RequestID(rawValue: t))
        case Kind.fetchAtParent: self = .fetchAtParent(FetchID(rawValue: t))
        case Kind.fetchResponse: self = .fetchResponse(FetchID(rawValue: t))
        case Kind.originServiceDone: self = .originServiceDone(FetchID(rawValue: UInt32(truncatingIfNeeded: event.payload)))
        case Kind.warmAtNode: self = .warmAtNode(NodeID(rawValue: t), ObjectID(rawValue: UInt32(truncatingIfNeeded: event.payload)))
        case Kind.backgroundRequest: self = .backgroundRequest(NodeID(rawValue: t))
        default: return nil
        }
    }

    /// The kernel's numbers for this event: kind, target and payload.
    @inline(__always)
    var encoded: (kind: EventKind, target: UInt32, payload: UInt64) {
        switch self {
        case .requestAtEdge(let r): return (EventKind(Kind.requestAtEdge), r.rawValue, 0)
        case .responseAtDevice(let r): return (EventKind(Kind.responseAtDevice), r.rawValue, 0)
        case .linkCompletion(let l): return (EventKind(Kind.linkCompletion), l.rawValue, 0)
        case .transferDone(let r): return (EventKind(Kind.transferDone), r.rawValue, 0)
        case .requestTimeout(let r): return (EventKind(Kind.requestTimeout), r.rawValue, 0)
        case .fetchAtParent(let f): return (EventKind(Kind.fetchAtParent), f.rawValue, 0)
        case .fetchResponse(let f): return (EventKind(Kind.fetchResponse), f.rawValue, 0)
        case .originServiceDone(let f): return (EventKind(Kind.originServiceDone), 0, UInt64(f.rawValue))
        case .warmAtNode(let n, let o): return (EventKind(Kind.warmAtNode), n.rawValue, UInt64(o.rawValue))
        case .backgroundRequest(let n): return (EventKind(Kind.backgroundRequest), n.rawValue, 0)
        }
    }
}
