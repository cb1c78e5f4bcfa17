#pragma once
// What a training job costs. Two ways to state a job:
//   - as work: a token budget (or steps x tokens per step) at a FLOP/token and an MFU on a cluster:
//       GPU-seconds = tokens x FLOP/token / (MFU x dense peak per GPU); wall-clock = GPU-seconds / GPUs
//   - as a reservation: N GPUs for D days (GPU-hours = N x D x 24), whatever they achieve.
// Dollars = GPU-hours x price per GPU-hour. Energy = GPU-hours x board power (kWh): the GPUs alone, before host,
// network and cooling overhead (PUE), which a preset does not know.
// The MFU denominator is the dense BF16 peak, the same convention as core/model/mfu.h (BF16+FP8 runs included).
#include <cstdint>
#include <optional>

#include "core/model/hardware_spec.h"

namespace mfu {

// A cluster as money sees it: how many GPUs, how fast each is at 100% MFU, what an hour of one costs.
struct ClusterRate {
    int gpuCount = 0;
    double peakFlopsPerGpu = 0; // dense BF16 FLOP/s, the MFU denominator
    double pricePerGpuHourUsd = 0;
    std::optional<double> powerWatts; // board power per GPU
};

// Rate of a hardware preset; the price is given separately because scenarios override the preset's typical price.
// Throws InputError when the preset has no dense BF16 peak or the count/price is not positive.
ClusterRate clusterRate(const HardwareSpec& hardware, int gpuCount, double pricePerGpuHourUsd);

struct JobCost {
    int gpuCount = 0;
    double gpuHours = 0;
    double wallClockSeconds = 0;
    double costUsd = 0;
    std::optional<double> energyKwh; // when the hardware states its power
    // Work done, when the job was stated as work or the reservation was given an MFU and FLOP/token.
    std::optional<double> mfu;
    std::optional<double> tokens;
    std::optional<double> productiveFlops; // tokens x FLOP/token

    double wallClockDays() const;
    double wallClockHours() const;
};

// A token budget at an MFU. Throws InputError for non-positive tokens/FLOP/token, or an MFU outside (0, 1].
JobCost costForTokens(double tokens, double flopsPerToken, double mfu, const ClusterRate& rate);
// The same job stated as optimizer steps of tokensPerStep tokens each.
JobCost costForSteps(int64_t steps, double tokensPerStep, double flopsPerToken, double mfu, const ClusterRate& rate);
// A reservation of rate.gpuCount GPUs for `days`. Throws InputError for non-positive days.
JobCost costForReservation(double days, const ClusterRate& rate);
// The same reservation with what it trains: tokens = GPU-seconds x MFU x peak / FLOP/token.
JobCost costForReservation(double days, const ClusterRate& rate, double flopsPerToken, double mfu);

// Shared validation, so every money entry point words its errors the same way.
void requirePositive(double value, const char* what);
void requireMfu(double mfu, const char* what); // (0, 1]
void requireRate(const ClusterRate& rate);

} // namespace mfu
