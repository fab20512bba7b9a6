import Foundation
import ScenarioFormat

extension SweepFiles {
    /// Why a sweep's results directory could not be opened; the text is the whole message.
    package struct OpenError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Opens the partial results directory of the sweep `manifest` under `lock`: a `NAME.partial`
    /// holding this sweep's manifest is resumed (its items are kept); otherwise a fresh one is
    /// started with the manifest and the base scenario. Either way `items/` exists afterwards.
    /// - Throws: `OpenError`: the partial directory holds another sweep or an unreadable manifest
    ///   (the message says what to remove), or a file-system failure.
    package static func open(_ lock: OutputLock, manifest: SweepManifest, base: ScenarioFile) throws(OpenError) -> ResultsDirectory {
        let directory: ResultsDirectory
        do {
            if let resumed = try ResultsDirectory.resume(lock),
               FileManager.default.fileExists(atPath: resumed.partialURL.appendingPathComponent(manifestName).path) {
                switch readManifest(resumed.partialURL) {
                case let .success((found, _)) where found.sweepHash == manifest.sweepHash:
                    directory = resumed
                case let .success((found, _)):
                    throw OpenError(description: "\(resumed.partialURL.path) holds items of a different sweep (\(found.sweepHash), this one is \(manifest.sweepHash)); remove it or choose another --out")
                case let .failure(message):
                    throw OpenError(description: "\(message); remove \(resumed.partialURL.path) or choose another --out")
                }
            } else {
                directory = try ResultsDirectory.begin(lock, ownFiles: ownFiles)
                try directory.write(try CanonicalJSON.encode(manifest), named: manifestName)
                try directory.write(try CanonicalJSON.encode(base), named: scenarioName)
            }
            try FileManager.default.createDirectory(at: directory.partialURL.appendingPathComponent(itemsDirectory), withIntermediateDirectories: true)
        } catch let error as OpenError {
            lock.removeAndRelease()
            throw error
        } catch {
            lock.removeAndRelease()
            throw OpenError(description: "\(error)")
        }
        return directory
    }
}
