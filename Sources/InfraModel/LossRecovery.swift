/// How a lost TCP segment delays a response, shared by the simulator and the testbed's link shaper.
///
/// A response of B bytes travels as ceil(B / ``segmentBytes``) segments; each is lost independently
/// with the class's `segmentLossProbability`, and each loss holds the rest of the transfer for one
/// retransmission timeout (TCP delivers in order, so a lost segment blocks what follows it:
/// head-of-line). So a transfer with k losses takes k · RTO more than without loss, and with
/// probability p the mean delay is ceil(B / S) · p · RTO (k is Binomial(ceil(B / S), p)).
///
/// The timeout models recovery by timer, not fast retransmit: a conservative figure for the short
/// transfers of pre-staging, whose last segments have too few followers to trigger three
/// duplicate ACKs.
package enum LossRecovery {
    /// One segment's payload: Ethernet's 1500-byte MTU less 40 bytes of IPv4 and TCP headers.
    package static let segmentBytes: Int64 = 1_460

    /// Linux's retransmission floor (`TCP_RTO_MIN`, 200 ms).
    package static let timeoutFloorSeconds = 0.200

    /// The retransmission timeout of a connection with a steady round-trip time `rttSeconds`:
    /// RTT + 200 ms. Linux computes RTO = SRTT + max(4 · RTTVAR, `TCP_RTO_MIN`), which is RTT + 200 ms
    /// once the RTT is steady (RTTVAR → 0); Android devices run it and iOS's floor is of the same
    /// order. RFC 6298's 1 s minimum is a SHOULD that neither follows, and with it a single loss
    /// would cost a Wi-Fi download 35 RTTs.
    @inlinable
    package static func timeoutSeconds(rttSeconds: Double) -> Double { max(0, rttSeconds) + timeoutFloorSeconds }

    /// Segments of a response of `bytes` bytes (0 for an empty body), capped at UInt32.max.
    @inlinable
    package static func segments(bytes: Int64) -> UInt32 {
        guard bytes > 0 else { return 0 }
        return UInt32(clamping: (bytes + segmentBytes - 1) / segmentBytes)
    }
}
