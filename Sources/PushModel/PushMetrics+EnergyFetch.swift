import InfraModel
import SimKernel

extension PushMetrics {
    /// Issues `request` of device `d` with the radio energy model on (the caller tests
    /// `energy.enabled` once, so a run without the model takes the plain `InfraWorld.fetch`): the
    /// radio's promotion is charged (or the tail it cuts refunded) and, with
    /// `promotionDelaysFirstByte`, delays the connection set-up; the request id is recorded for
    /// the accounting at its end.
    @inline(never)
    mutating func energyFetch(_ request: InfraFetchRequest, device d: Int, foreground: Bool, neverOpened: Bool,
                              infra: inout InfraWorld, kernel: inout Kernel) throws -> UInt32 {
        let promotion = energy.open(device: d, network: request.networkClass, foreground: foreground, neverOpened: neverOpened, now: kernel.now.ticks)
        let id = try infra.fetch(request, radioPromotionTicks: promotion, kernel: &kernel).rawValue
        energy.noteRequest(id, device: d, network: request.networkClass, foreground: foreground, neverOpened: neverOpened)
        return id
    }

    /// Issues pre-stage `request` of device `d` when `requestHooks` is on: the per-campaign count,
    /// then the request with or without the radio model.
    @inline(never)
    mutating func hookedPrestageFetch(_ request: InfraFetchRequest, device d: Int, neverOpened: Bool, campaign c: Int,
                                      infra: inout InfraWorld, kernel: inout Kernel) throws -> UInt32 {
        noteFetchStarted(campaign: c)
        return try energy.enabled
            ? energyFetch(request, device: d, foreground: false, neverOpened: neverOpened, infra: &infra, kernel: &kernel)
            : infra.fetch(request, kernel: &kernel).rawValue
    }
}
