#pragma once
// Runs a TaskGraph on a Platform with the flow-level model of simgrid_engine: a flow first
// waits its route's latency, then shares every link of its route by max-min fairness, every
// flow an equal share or, where the network says so (core::Sharing), weighted by the inverse of
// its route's latency as SimGrid's CM02 penalties make it. Solved for the structure of the
// traffic, not flow by flow, so that it scales to whole-cluster collectives:
//  - flows that are interchangeable (same route, same bytes, entering the network at the same
//    instant) are one bundle standing for n flows, with n times the share on every link;
//  - the rates are solved by progressive filling (water-filling the links in the order they
//    saturate) once per instant at which the set of flows changes: the flows of a
//    bulk-synchronous collective that end together cost one solve, not one each;
//  - a solve re-rates only the components whose flows changed (bundles that share links,
//    directly or through others: an MPFT's plane under a collective, an EP group's all-to-all
//    under its leaf while nothing else touches its GPUs' links), each on its own and, when large,
//    on its own thread; where flows only ended, only the bundles filled to the lowest level among
//    them or higher (see FluidRun::rate).
// Same sharing and same times as simulate_simgrid, but for flows that end within 3e-4 of their
// time in the network of one another, which end together, at most that much early or late
// (tests hold them within 1e-3).
#include "core/engine.hpp"

namespace core {

// How a component whose flows only ended is re-rated: from the lowest level among them up (the
// same rates, for tests to hold against each other), or from scratch.
enum class FluidSolve { kFromEndedLevel, kFromScratch };

Timeline simulate_fluid(const Platform& platform, const TaskGraph& graph, SimulationStats* stats = nullptr,
                        FluidSolve solve = FluidSolve::kFromEndedLevel);

}  // namespace core
