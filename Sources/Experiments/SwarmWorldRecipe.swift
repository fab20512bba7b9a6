import Foundation

/// What a swarm world varies, and the "small world" sub-ranges it draws in (always intersected
/// with the schema's own range of each field).
extension SwarmDraft {
    /// Network classes of the scenario format (`population.networkMix`, `infra.networks`).
    static let networkClasses = ["wifi", "5g", "lte", "4g", "3g", "2g", "slow-2g"]

    /// Draws the whole world onto the base document.
    mutating func drawWorld(seed: UInt64) {
        // Run: two replications (jobs 1 and 2 are compared), a seed derived from the world's.
        var seedDraw = SwarmRandom(seed: seed ^ 0x0123_4567_89AB_CDEF)
        put(Int(seedDraw.next() >> 1), at: "run.seed")
        put(2, at: "run.replications")
        put("swarm", at: "name")
        let devices = integer("population.devices", 20...400, log: true)
        if node("run.devices") != nil { put(devices, at: "run.devices") }
        let horizon = integer("horizonSeconds", 60...900, log: true)
        put(horizon, at: "infra.metricsHorizonSeconds")
        drawTopology()
        drawPopulation()
        drawCampaigns(horizonSeconds: Double(horizon))
        drawPlatforms()
        drawPolicy()
        drawUsers()
    }

    /// PoPs, shields, caches, tiers, origin, networks, placeholder.
    mutating func drawTopology() {
        let pops = integer("infra.topology.popCount", 1...12)
        integer("infra.topology.shieldCount", 1...min(4, pops))
        put([Any](), at: "infra.topology.regions")
        put([Any](), at: "infra.topology.popOverrides")
        // names (a base's names fit its own PoP and region counts, not the drawn ones)
        put([Any](), at: "infra.topology.popNames")
        put([Any](), at: "infra.topology.regionNames")
        for cache in ["edgeCache", "shieldCache"] {
            integer("infra.\(cache).capacityBytes", 100_000...10_000_000_000, log: true)
            integer("infra.\(cache).entriesMax", 1...100_000, log: true)
            if random.chance(0.6) { put(["kind": "none"], at: "infra.\(cache).background") }
        }
        flag("infra.tiers.tieringEnabled", 0.7)
        flag("infra.tiers.requestCollapsingEnabled", 0.7)
        integer("infra.tiers.notModifiedBytes", 1...2_000)
        integer("infra.origin.workers", 1...64, log: true)
        integer("infra.origin.queueMax", 0...1_000)
        flag("infra.origin.sendsValidators", 0.5)
        flag("infra.cacheKeyIncludesSignedToken", 0.2)
        for step in ["dnsRoundTrips", "tcpRoundTrips", "tlsRoundTrips"] { integer("infra.connectionSetup.\(step)", 0...3) }
        if flag("infra.placeholder.enabled", 0.3) {
            flag("infra.placeholder.onSaveData", 0.5)
            choice("infra.placeholder.maxEffectiveConnectionType")
            integer("infra.placeholder.placeholderBytes", 100...20_000, log: true)
        }
        for net in Self.networkClasses where random.chance(0.4) {
            number("infra.networks[\"\(net)\"].failureProbability", 0...0.2)
            number("infra.networks[\"\(net)\"].stallProbability", 0...0.1)
            number("infra.networks[\"\(net)\"].segmentLossProbability", 0...0.05)
        }
    }

    /// Platform and network mix, store and data-saving shares, Doze, network changes.
    mutating func drawPopulation() {
        number("population.iosShare", 0...1)
        number("population.iosForceQuitShare", 0...0.5)
        number("population.lowDataModeShare", 0...0.3)
        number("population.saveDataShare", 0...0.3)
        put([Any](), at: "population.regionWeights")
        put([Any](), at: "population.regionNetworkMix")
        for net in Self.networkClasses {
            number("population.networkMix[\"\(net)\"]", net == "wifi" ? 0.01...1 : 0...(random.chance(0.3) ? 0 : 1))
        }
        number("population.doze.awake", 0.01...1)
        number("population.doze.lightDoze", 0...1)
        number("population.doze.deepDoze", 0...1)
        number("population.deepDozeElapsedMaxSeconds", 0...3_600)
        if random.chance(0.4) {
            number("population.networkChanges.switchesPerDay", 0...500)
            number("population.networkChanges.handoversPerDay", 0...500)
        }
        if random.chance(0.3) {
            number("population.dozeNight.deviceShare", 0...1)
            number("population.dozeNight.clockAtStartSeconds", 0...86_400)
        }
    }

    /// One to four campaigns from the base's first campaign: send times and rates, warming,
    /// creative swap, carousel, payload form, assets and their cache headers.
    mutating func drawCampaigns(horizonSeconds: Double) {
        let template = (node("campaigns[0]") as? [String: Any]) ?? [:]
        let count = random.integer(1...4)
        var campaigns: [Any] = []
        for i in 0..<count {
            var c = template
            c["name"] = "swarm-\(i)"
            for optional in ["carouselIntervalSeconds", "creativeSwap", "payloadLifetimeSeconds"] { c.removeValue(forKey: optional) }
            c["assets"] = [Any]()
            campaigns.append(c)
        }
        put(campaigns, at: "campaigns")
        for i in 0..<count {
            let p = "campaigns[\(i)]"
            number("\(p).audienceShare", 0.1...1)
            let start = number("\(p).sendStartSeconds", 0...(horizonSeconds * 0.6))
            number("\(p).sendRatePerMinute", 60...2_000_000, log: true)
            number("\(p).providerQuotaPerMinute", 60...2_000_000, log: true)
            flag("\(p).preStage", 0.9)
            // The payload form first: its rules between fields (PushModel's payload-form check)
            // decide the push kind, the asset count, variants and the carousel.
            let form = choice("\(p).payloadForm")
            switch form {
            case "silentURL": choice("\(p).iosPush", among: ["silent"])
            case "richAttachment": choice("\(p).iosPush", among: ["alert"])
            default: choice("\(p).iosPush")
            }
            let oneURLPerAsset = form == "silentURL" || form == "richAttachment"
            let carousel = form != "manifestReference" && form != "richAttachment" && random.chance(0.3)
            choice("\(p).androidPriority")
            choice("\(p).androidHandler")
            number("\(p).messageTtlSeconds", random.chance(0.3) ? 0...600 : 600...86_400)
            integer("\(p).ttlSeconds", 60...7_200, log: true)
            number("\(p).tokenLifetimeSeconds", 1...3_600, log: true)
            integer("\(p).cacheControl.maxAgeSeconds", 0...7_200)
            integer("\(p).cacheControl.staleWhileRevalidateSeconds", random.chance(0.5) ? 0...0 : 0...600)
            integer("\(p).cacheControl.staleIfErrorSeconds", random.chance(0.5) ? 0...0 : 0...3_600)
            let mode = choice("\(p).warm.mode")
            if mode != "none" {
                number("\(p).warm.aheadSeconds", 0...min(600, start))
                integer("\(p).warm.topPops", 1...12)
            }
            let assets = form == "richAttachment" || (form == "silentURL" && !carousel) ? 1 : random.integer(1...3)
            for a in 0..<assets {
                put("asset-\(a)", at: "\(p).assets[\(a)].name")
                choice("\(p).assets[\(a)].type", among: form == "richAttachment" ? ["image", "audio", "video"] : nil)
                choice("\(p).assets[\(a)].priority")
                integer("\(p).assets[\(a)].bytes", 1_000...5_000_000, log: true)
                put([Any](), at: "\(p).assets[\(a)].variants")
                if !oneURLPerAsset, random.chance(0.2) {
                    put(random.pick(["wifi", "4g", "3g"]), at: "\(p).assets[\(a)].variants[0].network")
                    integer("\(p).assets[\(a)].variants[0].bytes", 1_000...2_000_000, log: true)
                }
            }
            if carousel { number("\(p).carouselIntervalSeconds", 0...120) }
            if random.chance(0.3) {
                number("\(p).creativeSwap.secondsBeforeSend", 0...min(300, start))
                number("\(p).creativeSwap.rewarmDelaySeconds", 0...60)
            }
            if random.chance(0.3) { number("\(p).payloadLifetimeSeconds", 1...3_600, log: true) }
        }
    }

    /// iOS extension and silent-push rules, Android handler and job times.
    mutating func drawPlatforms() {
        number("platforms.ios.serviceExtensionBudgetSeconds", 5...30)
        number("platforms.ios.silentBackgroundSeconds", 1...30)
        number("platforms.ios.silentBudgetPerHour", 0.5...20)
        integer("platforms.ios.silentBurst", 1...10)
        number("platforms.ios.silentHoldProbability", 0...1)
        number("platforms.android.messageHandlerSeconds", 1...20)
        number("platforms.android.jobSeconds", 1...600, log: true)
        flag("platforms.backgroundConnectionWarm", 0.5)
    }

    /// PreloadKit's policy knobs.
    mutating func drawPolicy() {
        number("preloadPolicy.requestTimeoutSeconds", 0.5...30, log: true)
        number("preloadPolicy.iosServiceExtensionDeadlineSeconds", 1...5)
        flag("preloadPolicy.parallelFetches", 0.7)
        flag("preloadPolicy.prefetchInLowDataMode", 0.3)
        flag("preloadPolicy.prefetchWithSaveData", 0.3)
        flag("preloadPolicy.fallbackOnHandlerDeadline", 0.5)
        flag("preloadPolicy.oneAssetPerSilentPush", 0.3)
        flag("preloadPolicy.attachMedia", 0.5)
        if flag("preloadPolicy.receiptsEnabled", 0.3) { number("preloadPolicy.receiptJitterWindowSeconds", 0...60) }
        integer("preloadPolicy.storeEntriesMax", 1...64, log: true)
        integer("preloadPolicy.storeCapacityBytes", 100_000...1_000_000_000, log: true)
        number("preloadPolicy.fetchWindowMinSeconds", 0...3)
    }

    /// Users: open probabilities per segment, tap delay, reading, foreground fetches.
    mutating func drawUsers() {
        let segments = (node("users.segments") as? [Any])?.count ?? 0
        for s in 0..<segments {
            number("users.segments[\(s)].iosOpenProbability", 0...1)
            number("users.segments[\(s)].androidOpenProbability", 0...1)
        }
        let median = (random.logUniform(0.5...60) * 1_000).rounded() / 1_000
        let p90 = (median * random.uniform(1.2...5) * 1_000).rounded() / 1_000
        put(["kind": "lognormal", "median": median, "p90": p90] as [String: Any], at: "users.tapDelaySeconds")
        number("users.readProbability", 0...1)
        number("users.foregroundTimeoutSeconds", 1...30, log: true)
        flag("users.foregroundFetchesKept", 0.5)
        flag("users.foregroundConnectionWarm", 0.5)
    }
}
