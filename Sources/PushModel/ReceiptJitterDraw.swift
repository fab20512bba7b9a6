import Stochastic

/// Each session's `DeviceContext.receiptJitterUniform`: one uniform per push (device, campaign,
/// part) from its own stream purpose, so the other draws of a run are unchanged and variants that
/// differ only in the jitter window share the same uniforms. Only built when receipts are on:
/// without receipts nothing is drawn.
struct ReceiptJitterDraw {
    let runSeed: UInt64
    let stream: RandomStream

    static let purpose = StreamPurpose("push.receipt.jitter").rawValue

    init(runSeed: UInt64) {
        self.runSeed = runSeed
        stream = RandomStream(seed: runSeed)
    }

    /// The uniform in [0, 1) of push `w` on device `d`.
    func uniform(device d: Int, push w: PushWord) -> Double {
        stream.reseed(StreamSeed.derive(masterSeed: runSeed, entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40,
                                        purpose: Self.purpose))
        return stream.uniform()
    }
}
