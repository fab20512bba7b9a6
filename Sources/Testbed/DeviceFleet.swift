import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PreloadKit
import PreloadKitFoundation

/// One emulated device: when its push arrives, which link it uses and what its user does.
package struct DeviceSpec: Sendable {
    package var index: Int
    package var pop: Int
    /// InfraModel class name (`wifi`, `lte`, ...).
    package var networkName: String
    package var network: PreloadKit.NetworkClass
    /// Access-link port (the device's network class in front of its PoP).
    package var linkPort: Int
    /// Push arrival, seconds after the run's time 0 (send time + delivery latency).
    package var receiveAtSeconds: Double
    package var opens: Bool
    package var tapDelaySeconds: Double
    package var renderSeconds: Double
    package var freeStorageBytes: Int64
    package var payload: Data
    /// A calibration device: fetches objects cached at edge 0 through a zero-delay link, so its
    /// download times are the testbed's own overhead (see ``TestbedRunner``).
    package var isCalibration = false
}

/// What one device measured.
package struct DeviceRecord: Sendable {
    package var index: Int
    package var networkName: String
    package var pop: Int
    /// `completed`, `partial`, `timedOutOrKilled`, `skippedByPolicy`, `rejected` (payload or
    /// session refused), `notRun` (the run stopped first).
    package var outcome = "notRun"
    /// Successful pre-stage asset downloads (driver-measured start → stored), seconds.
    package var downloadSeconds: [Double] = []
    package var fetchesStarted = 0
    package var fetchesTimedOut = 0
    package var fetchesFailed = 0
    package var backgroundBytes: Int64 = 0
    package var foregroundBytes: Int64 = 0
    package var tapped = false
    package var tapInstant = false
    package var tapToPaintSeconds: Double?
    package var paintFailed = false
    package var problem: String?
}

/// Runs the devices on the real clock: each gets its own `PreloadDriver` (URLSession + file store
/// in its own directory), receives its signed payload at its arrival time, is delivered (or
/// killed at the iOS extension budget after the expiry warning), and, if its user opens the
/// notification before the horizon, taps: PreloadKit's tap answer, foreground fetches of what is
/// missing (a fresh URLSession through the same link: new connections, as after an app launch),
/// then the render time. Everything is bounded: each device's work ends by the horizon plus the
/// extension budget (a tap during a session waits for it) plus the foreground time-out (the whole
/// foreground fetch, not an idle time-out) plus the render time.
package final class DeviceFleet: @unchecked Sendable {
    package let specs: [DeviceSpec]
    package let policy: PreloadPolicy
    package let storeCapacityBytes: Int64
    package let storeEntriesMax: Int
    package let directory: URL
    package let horizonSeconds: Double
    package let extensionBudgetSeconds: Double
    package let expiryWarningLeadSeconds: Double
    package let foregroundTimeoutSeconds: Double

    package init(specs: [DeviceSpec], policy: PreloadPolicy, storeCapacityBytes: Int64, storeEntriesMax: Int, directory: URL,
                horizonSeconds: Double, extensionBudgetSeconds: Double, expiryWarningLeadSeconds: Double, foregroundTimeoutSeconds: Double) {
        self.specs = specs
        self.policy = policy
        self.storeCapacityBytes = storeCapacityBytes
        self.storeEntriesMax = storeEntriesMax
        self.directory = directory
        self.horizonSeconds = horizonSeconds
        self.extensionBudgetSeconds = extensionBudgetSeconds
        self.expiryWarningLeadSeconds = expiryWarningLeadSeconds
        self.foregroundTimeoutSeconds = foregroundTimeoutSeconds
    }

    /// Runs every device from `start` (the run's time 0) and returns their records in index order.
    package func run(start: ContinuousClock.Instant) async -> [DeviceRecord] {
        await withTaskGroup(of: DeviceRecord.self) { group in
            for spec in specs {
                group.addTask { await self.runDevice(spec, start: start) }
            }
            var records: [DeviceRecord] = []
            for await r in group { records.append(r) }
            return records.sorted { $0.index < $1.index }
        }
    }

    func runDevice(_ spec: DeviceSpec, start: ContinuousClock.Instant) async -> DeviceRecord {
        var record = DeviceRecord(index: spec.index, networkName: spec.networkName, pop: spec.pop)
        let home = directory.appendingPathComponent("d\(spec.index)", isDirectory: true)
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: home.appendingPathComponent("store", isDirectory: true))
        configuration.storeCapacityBytes = storeCapacityBytes
        configuration.storeEntriesMax = storeEntriesMax
        configuration.attachmentDirectory = home.appendingPathComponent("attachments", isDirectory: true)
        let receiveAt = start + .microseconds(Int64(spec.receiveAtSeconds * 1e6))
        do { try await Task.sleep(until: receiveAt, clock: .continuous) } catch { return record }
        let driver: PreloadDriver
        do {
            driver = try PreloadDriver(configuration: configuration)
        } catch {
            record.outcome = "rejected"
            record.problem = "\(error)"
            return record
        }
        defer { Task { await driver.shutdown() } }
        let context = DeviceContext(handlerKind: .iOSServiceExtension, network: spec.network, freeStorageBytes: spec.freeStorageBytes,
                                    receiptJitterUniform: 0)
        // The OS's extension budget: the expiry warning `lead` before the end.
        let warnAt = receiveAt + .microseconds(Int64((extensionBudgetSeconds - expiryWarningLeadSeconds) * 1e6))
        let watchdog = Task {
            do { try await Task.sleep(until: warnAt, clock: .continuous) } catch { return }
            await driver.expiryWarning()
        }
        let delivered: DeliveryResult
        do {
            delivered = try await driver.run(payload: spec.payload, context: context)
        } catch {
            watchdog.cancel()
            record.outcome = "rejected"
            record.problem = "\(error)"
            return record
        }
        let shownAt = ContinuousClock.now
        let final: DeliveryResult
        do { final = try await driver.finished() } catch { final = delivered }
        watchdog.cancel()
        record.outcome = Self.outcome(delivered.delivery)
        for f in final.fetches {
            guard case .asset = f.purpose else { continue }
            record.backgroundBytes += f.bytesReceived
            if f.isRevalidation { continue }
            record.fetchesStarted += 1
            switch f.state {
            case .stored:
                if let us = f.durationMicroseconds { record.downloadSeconds.append(Double(us) / 1e6) }
            case .cancelled(.timedOut): record.fetchesTimedOut += 1
            case .failed: record.fetchesFailed += 1
            default: break
            }
        }

        // The user.
        guard spec.opens else { return record }
        let tapAt = shownAt + .microseconds(Int64(spec.tapDelaySeconds * 1e6))
        guard tapAt <= start + .microseconds(Int64(horizonSeconds * 1e6)) else { return record }
        do { try await Task.sleep(until: tapAt, clock: .continuous) } catch { return record }
        record.tapped = true
        let tapStart = ContinuousClock.now
        var missing = Self.missingKeys(try? await driver.tap())
        if let known = missing, !known.isEmpty, await driver.phase != .finished {
            // The session is still fetching: what it stores is announced; wait for it to end.
            _ = try? await driver.finished()
            missing = Self.missingKeys(try? await driver.tap())
        }
        if missing == nil {
            record.paintFailed = true
            return record
        }
        if let keys = missing, !keys.isEmpty {
            let request = try? PayloadParser.parse(json: [UInt8](spec.payload), options: policy.manifestOptions)
            let urls: [String] = request?.assets.compactMap { asset in
                let r = asset.resolved(for: spec.network)
                return keys.contains(r.key) ? r.url.absoluteString : nil
            } ?? []
            let (ok, bytes) = await Self.foregroundFetch(urls, timeoutSeconds: foregroundTimeoutSeconds)
            record.foregroundBytes = bytes
            if !ok || urls.count != keys.count {
                record.paintFailed = true
                return record
            }
        } else {
            record.tapInstant = true
        }
        do { try await Task.sleep(for: .microseconds(Int64(spec.renderSeconds * 1e6))) } catch { return record }
        let elapsed = ContinuousClock.now - tapStart
        record.tapToPaintSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return record
    }

    /// The critical assets the answer reports missing (nil: no answer, or assets unknown).
    static func missingKeys(_ answer: TapAnswer?) -> [StoreKey]? {
        guard let answer, answer.assetsKnown else { return nil }
        return answer.assets.filter { $0.freshness == .missing }.map(\.key)
    }

    /// GETs `urls` in parallel on a new ephemeral session; true when every one returned 200 within
    /// `timeoutSeconds` of the call. The whole fetch is bounded, as the model's foreground time-out
    /// is: URLSession's request time-out is an idle time-out (it restarts with every byte that
    /// arrives), so a slow transfer trickling in would otherwise run on past it.
    static func foregroundFetch(_ urls: [String], timeoutSeconds: Double) async -> (Bool, Int64) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.timeoutIntervalForRequest = timeoutSeconds
        let session = URLSession(configuration: configuration)
        let deadline = Task {
            do { try await Task.sleep(for: .microseconds(Int64(timeoutSeconds * 1e6))) } catch { return }
            session.invalidateAndCancel()  // every transfer still running fails
        }
        defer {
            deadline.cancel()
            session.invalidateAndCancel()
        }
        return await withTaskGroup(of: (Bool, Int64).self) { group in
            for text in urls {
                group.addTask {
                    guard let url = URL(string: text) else { return (false, 0) }
                    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
                    request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
                    guard let (data, response) = try? await session.data(for: request) else { return (false, 0) }
                    return ((response as? HTTPURLResponse)?.statusCode == 200, Int64(data.count))
                }
            }
            var ok = true
            var bytes: Int64 = 0
            for await (good, n) in group {
                ok = ok && good
                bytes += n
            }
            return (ok, bytes)
        }
    }

    /// The model's outcome bucket of a delivery (see `OutcomeCounts`).
    static func outcome(_ d: Delivery) -> String {
        switch d.reason {
        case .hardDeadline, .osExpiry: return "timedOutOrKilled"
        case .nothingToFetch: return d.readyAssets == d.selectedAssets && d.selectedAssets > 0 ? "completed" : "skippedByPolicy"
        case .assetsSettled: return d.readyAssets == d.selectedAssets ? "completed" : "partial"
        }
    }
}
