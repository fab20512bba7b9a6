import SimKernel

/// Event kinds of this module (raw values 0x0100–0x01FF). An outer handler routes every event
/// whose `kind.rawValue` is in ``range`` to ``InfraWorld/handle(_:in:)``.
public enum InfraEventKind {
    public static let range: ClosedRange<UInt16> = 0x0100...0x01FF
    /// A device request reaches its PoP (target = request id).
    public static let requestAtEdge = EventKind(0x0100)
    /// The response starts arriving at the device (target = request id).
    public static let responseAtDevice = EventKind(0x0101)
    /// Processor-sharing completion on a shared link (target = link id).
    public static let linkCompletion = EventKind(0x0102)
    /// Transfer finished at the device's own rate cap (target = request id).
    public static let transferDone = EventKind(0x0103)
    /// The request's timeout (target = request id).
    public static let requestTimeout = EventKind(0x0104)
    /// An upstream fetch reaches the parent tier (target = fetch id).
    public static let fetchAtParent = EventKind(0x0105)
    /// An upstream fetch's response is back at the requesting node (target = fetch id).
    public static let fetchResponse = EventKind(0x0106)
    /// An origin worker finished (payload = fetch id).
    public static let originServiceDone = EventKind(0x0107)
    /// A warm request reaches a node (target = node, payload = object id).
    public static let warmAtNode = EventKind(0x0108)
    /// One explicit background request at a node (target = node).
    public static let backgroundRequest = EventKind(0x0109)
}
