/// The app's analytics endpoint as a server with a capacity (`analytics` in a scenario): delivery
/// receipts beyond what it serves in a second wait in a bounded FIFO queue; beyond the queue they
/// are rejected. Only with `preloadPolicy.receiptsEnabled` (the scenario format checks). Absent:
/// the endpoint is an unlimited counter and results are as without it.
package struct AnalyticsConfig: Sendable, Equatable {
    /// Receipts the endpoint serves a second (> 0). Required: there is no published figure, it is
    /// the team's own provisioning.
    package var capacityPerSecond: Double = 0
    /// Receipts waiting at most (0: none wait, a receipt beyond the second's capacity is rejected).
    /// Judgement: 10 000, a load balancer's or a queue worker's backlog bound of the order the
    /// common defaults give (e.g. a listen backlog times a few workers), stated as judgement.
    package var queueMax: Int = AnalyticsConfig.queueMaxDefault

    package static let queueMaxDefault = 10_000
    /// The largest queue a scenario may state.
    package static let queueMaxLimit = 1_000_000_000

    package init(capacityPerSecond: Double = 0, queueMax: Int = AnalyticsConfig.queueMaxDefault) {
        self.capacityPerSecond = capacityPerSecond
        self.queueMax = queueMax
    }
}
