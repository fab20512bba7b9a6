import Foundation
import ScenarioFormat

/// Combining the shard directories of one sweep (`prestage merge`): every shard is checked (complete,
/// of the same sweep and shard count, each shard once, exactly its items, each valid) before any
/// byte is written.
package enum SweepMerge {
    /// Reads and checks every shard: the manifest, the base scenario's bytes, and every item (its
    /// bytes and decoded form) in item order.
    package static func collect(_ paths: [String]) -> Result<(SweepManifest, Data, [Data], [SweepItemResult]), CommandMessage> {
        var first: (path: String, manifest: SweepManifest, scenario: Data)? = nil
        var shardOf: [Int: String] = [:]
        var shardCount: Int? = nil
        var itemData: [Data?] = []
        var items: [SweepItemResult?] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                if FileManager.default.fileExists(atPath: url.path + ".partial") {
                    return .failure(CommandMessage("\(path): the shard did not complete (\(path).partial holds an INCOMPLETE marker); rerun its sweep command to finish it"))
                }
                return .failure(CommandMessage("\(path): expected a shard directory written by prestage sweep --shard, found nothing"))
            }
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(ResultsDirectory.incompleteMarkerName).path) {
                return .failure(CommandMessage("\(path): the shard did not complete (it holds an INCOMPLETE marker)"))
            }
            let manifest: SweepManifest
            switch SweepFiles.readManifest(url) {
            case let .success((m, _)): manifest = m
            case let .failure(message): return .failure(message)
            }
            guard FileManager.default.fileExists(atPath: url.appendingPathComponent(SweepFiles.shardName).path) else {
                return .failure(CommandMessage("\(path): expected a shard directory (with shard.json), found a complete unsharded sweep"))
            }
            let info: SweepShardInfo
            switch SweepFiles.read(SweepShardInfo.self, url.appendingPathComponent(SweepFiles.shardName), what: "a prestage shard.json") {
            case let .success((i, _)): info = i
            case let .failure(message): return .failure(message)
            }
            guard let scenario = FileManager.default.contents(atPath: url.appendingPathComponent(SweepFiles.scenarioName).path) else {
                return .failure(CommandMessage("\(path)/\(SweepFiles.scenarioName): expected the sweep's base scenario, found no readable file"))
            }
            if let first {
                guard manifest.sweepHash == first.manifest.sweepHash else {
                    return .failure(CommandMessage("\(path): a shard of a different sweep (\(manifest.sweepHash); \(first.path) is \(first.manifest.sweepHash))"))
                }
                guard scenario == first.scenario else {
                    return .failure(CommandMessage("\(path)/\(SweepFiles.scenarioName): expected the same base scenario as \(first.path), found different bytes"))
                }
            } else {
                first = (path, manifest, scenario)
                itemData = Array(repeating: nil, count: manifest.itemCount)
                items = Array(repeating: nil, count: manifest.itemCount)
            }
            guard info.sweepHash == manifest.sweepHash, info.shard.index >= 0, info.shard.count >= 1, info.shard.index < info.shard.count else {
                return .failure(CommandMessage("\(path)/\(SweepFiles.shardName): expected shard i/N of sweep \(manifest.sweepHash), found shard \(info.shard.text) of \(info.sweepHash)"))
            }
            if let n = shardCount, n != info.shard.count {
                return .failure(CommandMessage("\(path): shard \(info.shard.text), but the other shards are of \(n)"))
            }
            shardCount = info.shard.count
            if let other = shardOf[info.shard.index] {
                return .failure(CommandMessage("\(path): duplicate shard \(info.shard.text) (also \(other))"))
            }
            shardOf[info.shard.index] = path
            // Its items: exactly those k with k mod N = i, each valid.
            let itemsURL = url.appendingPathComponent(SweepFiles.itemsDirectory, isDirectory: true)
            let r = manifest.replications
            // Files that do not belong to this shard (or are hidden, links or directories).
            let owned = Set(stride(from: info.shard.index, to: manifest.itemCount, by: info.shard.count).map {
                SweepItemResult.fileName(point: $0 / r, replication: $0 % r)
            })
            do {
                _ = try ResultsDirectory.checkItemEntries(itemsURL, what: "the items of shard \(info.shard.text)", removingCutShortWrites: false) { owned.contains($0) }
            } catch {
                return .failure(CommandMessage("\(error)"))
            }
            var missing: [String] = []
            for k in stride(from: info.shard.index, to: manifest.itemCount, by: info.shard.count) {
                switch SweepFiles.readItem(itemsURL, point: k / r, replication: k % r, manifest: manifest) {
                case let .success((item, data))?:
                    items[k] = item
                    itemData[k] = data
                case let .failure(message)?: return .failure(message)
                case nil: missing.append(SweepItemResult.fileName(point: k / r, replication: k % r))
                }
            }
            if !missing.isEmpty {
                return .failure(CommandMessage("\(path): shard \(info.shard.text) is missing \(missing.count) item(s): \(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? ", …" : "")"))
            }
        }
        guard let first, let n = shardCount else { return .failure(CommandMessage("expected at least one shard directory, found none")) }
        let absent = (0..<n).filter { shardOf[$0] == nil }
        if !absent.isEmpty {
            return .failure(CommandMessage("missing shard(s) \(absent.prefix(10).map { "\($0)/\(n)" }.joined(separator: ", "))\(absent.count > 10 ? ", …" : "") of sweep \(first.manifest.sweepHash)"))
        }
        // Every shard present and complete covers every item exactly once (k mod N partitions them).
        return .success((first.manifest, first.scenario, itemData.compactMap { $0 }, items.compactMap { $0 }))
    }
}
