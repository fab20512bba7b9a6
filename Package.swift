// swift-tools-version:6.0
//
// Prestage: a discrete-event simulator for push-notification asset pre-staging via CDN.
//
// The target graph enforces the layers (each arrow is "may import"):
//
//   CGSL (system library, libgsl)  <-  Stochastic  <-  SimKernel  <-  InfraModel  <-  prestage (CLI)
//   PreloadKit (no dependencies)   <-  PreloadKitFoundation (real URLSession + file driver)
//
// Only `Stochastic` imports `CGSL`. `PreloadKit` depends on nothing of the simulator: it is the
// client logic an app would ship, and the simulator drives the very same code in virtual time.
import PackageDescription

let strictFlags: [SwiftSetting] = [
    // `swift build -Xswiftc -DPRESTAGE_INVARIANTS` (or `make test`) turns on expensive invariant checks.
    .define("PRESTAGE_INVARIANTS", .when(configuration: .debug)),
]

let package = Package(
    name: "Prestage",
    products: [
        .library(name: "PreloadKit", targets: ["PreloadKit"]),
        .library(name: "PreloadKitFoundation", targets: ["PreloadKitFoundation"]),
        .executable(name: "prestage", targets: ["prestage"]),
    ],
    targets: [
        // Layer 0: the C library, reached only through this shim.
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"])]
        ),
        // zlib, reached only by LogFit's line reader (gzip and plain logs alike).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Layer 1: random streams and distributions. The only module that imports CGSL.
        .target(name: "Stochastic", dependencies: ["CGSL"], swiftSettings: strictFlags),
        // Layer 2: virtual time, the pending-event set and the run loop. No domain code.
        .target(name: "SimKernel", dependencies: ["Stochastic"], swiftSettings: strictFlags),
        // Layer 3: world models: mobile networks, CDN PoPs, shields and origin.
        .target(name: "InfraModel", dependencies: ["SimKernel", "Stochastic"], swiftSettings: strictFlags),

        // The client pre-stage logic: sans-I/O, platform-neutral, no dependencies.
        .target(name: "PreloadKit", swiftSettings: strictFlags),
        // The real driver: URLSession + an atomic file store, running PreloadKit against the real clock.
        .target(name: "PreloadKitFoundation", dependencies: ["PreloadKit"], swiftSettings: strictFlags),
        // Human-readable reports (Markdown, self-contained HTML + inline SVG) from plain data; Foundation only.
        .target(name: "ReportKit", swiftSettings: strictFlags),

        // Output statistics: replication CIs, paired comparisons, mergeable latency histograms.
        .target(name: "SimStats", dependencies: ["Stochastic"], swiftSettings: strictFlags),
        // Scenario plumbing: strict JSON decoding with path-named errors, overrides, atomic output, CLI args.
        .target(name: "ScenarioKit", swiftSettings: strictFlags),
        // Layer 4: devices, OS rules, users and campaigns driving PreloadKit against InfraModel.
        .target(
            name: "PushModel",
            dependencies: ["InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit"],
            swiftSettings: strictFlags
        ),

        // Calibration from logs: CDN and push-analytics readers (streaming, gzip), the fits (through
        // Stochastic's GSL fitting API), the scenario overlay and the fit report.
        .target(name: "LogFit", dependencies: ["Stochastic", "CZlib"], swiftSettings: strictFlags),

        // Scenario files, the prestage commands, parallel replications, results and reports (all testable).
        .target(
            name: "Scenario",
            dependencies: ["PushModel", "ScenarioKit", "ReportKit", "SimStats", "InfraModel", "SimKernel", "Stochastic", "PreloadKit", "LogFit"],
            swiftSettings: strictFlags
        ),
        // Top: the command-line tool (a thin main over Scenario).
        .executableTarget(
            name: "prestage",
            dependencies: ["Scenario"],
            swiftSettings: strictFlags
        ),
        // Kernel hold-model benchmark plus the full model against the hold loop at the model's
        // pending-event count (`make bench`); never run as a timed test.
        .executableTarget(
            name: "prestage-kernel-bench",
            dependencies: ["SimKernel", "Stochastic", "PushModel", "Scenario"],
            swiftSettings: strictFlags
        ),

        .testTarget(name: "StochasticTests", dependencies: ["Stochastic", "CGSL"]),
        .testTarget(name: "SimKernelTests", dependencies: ["SimKernel", "Stochastic"]),
        .testTarget(name: "InfraModelTests", dependencies: ["InfraModel", "SimKernel", "Stochastic"]),
        .testTarget(name: "PreloadKitTests", dependencies: ["PreloadKit"]),
        .testTarget(
            name: "PreloadKitFoundationTests",
            dependencies: ["PreloadKitFoundation", "PreloadKit"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SimStatsTests", dependencies: ["SimStats", "Stochastic"]),
        .testTarget(
            name: "PushModelTests",
            dependencies: ["PushModel", "InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit", "ScenarioKit"]
        ),
        // Stochastic only to check that its Distribution decoding reports well through ScenarioKit.
        .testTarget(name: "ScenarioKitTests", dependencies: ["ScenarioKit", "Stochastic"]),
        .testTarget(name: "ReportKitTests", dependencies: ["ReportKit"]),
        .testTarget(name: "LogFitTests", dependencies: ["LogFit", "Stochastic", "Scenario", "ScenarioKit"], resources: [.copy("Samples")]),
        .testTarget(name: "ScenarioTests", dependencies: ["Scenario", "PushModel", "ScenarioKit", "SimStats"]),
    ],
    swiftLanguageModes: [.v6]
)
