import Foundation
import PreloadKit

extension PreloadDriver {
    /// The actions that leave the driver for the app: a receipt to send at its time
    /// (`receiptHandler`), a fallback job to enqueue now (`fallbackHandler`).
    func handToApp(_ action: Action) {
        switch action {
        case .scheduleReceipt(let receipt): scheduleReceipt(receipt)
        case .enqueueFallback(let request): if !isShutDown { configuration.fallbackHandler?(request) }
        default: preconditionFailure("\(action) does not leave the driver for the app")
        }
    }
}
