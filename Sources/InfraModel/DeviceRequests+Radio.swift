import SimKernel

extension InfraWorld {
    /// Issue a device request whose radio needs `radioPromotionTicks` microseconds to become
    /// connected before it can send (its idle → connected promotion, when the requester models
    /// radio energy): added to the connection set-up, so it delays the first byte. A separate
    /// entry point so that requesters without a radio model pass no such term (`fetch(_:kernel:)`).
    /// - Throws: as ``fetch(_:kernel:)``.
    package mutating func fetch(_ r: FetchRequest, radioPromotionTicks: Int64, kernel: inout Kernel) throws -> RequestID {
        try issue(r, radioPromotionTicks: radioPromotionTicks, kernel: &kernel)
    }
}
