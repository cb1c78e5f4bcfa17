#include "core/costmodel/data_parallel_comm.h"

#include <algorithm>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/memory_bound_terms.h"
#include "core/costmodel/offload_terms.h"

namespace mfu {

int expertShardGroup(const StepContext& x, int denseGroup)
{
    const Parallelism& par = x.scenario->parallelism;
    const long long ranks = static_cast<long long>(denseGroup) * par.tp;
    const long long expertBlock = static_cast<long long>(par.ep) * static_cast<long long>(x.expertTp);
    return expertBlock > 0 ? static_cast<int>(ranks / expertBlock) : denseGroup;
}

namespace {

// FSDP's group: the shard ranks, TP apart.
CommGroup fsdpGroup(const StepContext& x)
{
    return { x.fsdpGroup, x.scenario->parallelism.tp };
}

// The once-a-step gradient sync's group: HSDP's replicas (one member per FSDP group), or every data-parallel and CP
// rank under ZeRO-1 and DDP.
CommGroup gradientSyncGroup(const StepContext& x)
{
    const Parallelism& par = x.scenario->parallelism;
    if (x.fsdp)
        return { par.hsdpReplicas, par.tp * x.fsdpGroup };
    return { static_cast<int>(x.dataParallel) * par.cp, par.tp };
}

// Megatron-FSDP (Megatron-Core's megatron_fsdp: persistent double buffers, gathers and reduce-scatters on their own
// streams) prefetches across the forward-backward boundary and lets the last buckets' reduce-scatter run under the
// next micro-batch's forward, so a micro-batch's traffic hides behind all of its compute in one window, not forward
// and backward apart; only the step's first gather and last reduce-scatter have nothing to hide behind.
void megatronFsdpOverlap(FsdpComm& f, double units, double computeSeconds, double share)
{
    const double comm = 2.0 * f.allGather + f.reduceScatter;
    const double exposed = exposedAfterOverlap(comm, computeSeconds, share);
    f.allGatherForwardExposed = exposed * f.allGather / comm;
    f.allGatherBackwardExposed = f.allGatherForwardExposed;
    f.reduceScatterExposed = exposed - 2.0 * f.allGatherForwardExposed;
    f.allGatherStepExposed = f.allGather / units;
    f.reduceScatterStepExposed = f.reduceScatter / units;
}

// What stays exposed of a collective issued in pieces behind `window` of compute: what the window cannot hide, a
// share of what it can, and the last piece, which has nothing after it to hide behind; never more than the whole.
double exposedWithLastPiece(double comm, double window, double share, double lastPiece)
{
    return std::min(comm, exposedAfterOverlap(comm, window, share) + lastPiece);
}

// Megatron-Core's interleaved schedule (forward_backward_pipelining_with_interleaving) syncs each model chunk's
// gradients once the chunk's last micro-batch has gone backward (grad_sync_func per chunk), and gathers each
// chunk's updated weights one chunk ahead of its first forward (param_sync_func). The rank runs a chunk's
// micro-batches in groups of min(PP, micro-batches), so that much of one chunk's work lies between two chunks'
// syncs. Without virtual stages there is one chunk: the whole sync behind the last backward, bucket by bucket.
struct ChunkedWindow {
    int chunks = 1;
    double chunkPass = 0; // one micro-batch through one chunk
    double gap = 0; // from one chunk's last (or first) micro-batch to the next chunk's
    double buckets = 1; // of the whole sync
};

ChunkedWindow chunkedWindow(const StepContext& x, double passSeconds)
{
    ChunkedWindow w;
    w.chunks = std::max(1, static_cast<int>(x.virtualStages));
    w.chunkPass = passSeconds / w.chunks;
    w.gap = std::min(x.pp, x.microBatches) * w.chunkPass;
    w.buckets = std::max(1.0, x.fsdpUnits);
    return w;
}

// The gradient sync: each chunk's buckets issued as its last backward produces them, one after another on the
// stream; the GPU waits for what is still in flight when its last kernel ends, never more than the sync takes.
double chunkedGradientSyncExposed(double sync, const ChunkedWindow& w)
{
    const double perChunk = sync / w.chunks;
    const double bucketsPerChunk = std::max(1.0, w.buckets / w.chunks);
    const double lastBucket = perChunk / bucketsPerChunk; // a chunk holds at least one bucket
    double streamFree = 0;
    for (int i = 0; i < w.chunks; ++i) {
        const double start = i * w.gap; // the chunk's last backward begins
        const double firstReady = start + w.chunkPass / bucketsPerChunk;
        streamFree = std::max(std::max(streamFree, firstReady) + perChunk, start + w.chunkPass + lastBucket);
    }
    const double computeEnd = (w.chunks - 1) * w.gap + w.chunkPass;
    return std::min(sync, std::max(0.0, streamFree - computeEnd));
}

// The weight gather: the first chunk's buckets prefetched under its own first forward (its first bucket waited
// for), every later chunk's issued when the chunk before it starts, so that it hides behind that chunk's group of
// forwards and, bucket by bucket as the first chunk's does, its own first forward, unless the stream is still busy.
double chunkedWeightGatherExposed(double gather, const ChunkedWindow& w, double exposedShare)
{
    const double perChunk = gather / w.chunks;
    double stall = exposedAfterOverlap(perChunk, w.chunkPass, exposedShare) + gather / w.buckets;
    double streamFree = perChunk;
    for (int i = 1; i < w.chunks; ++i) {
        const double issued = (i - 1) * w.gap + stall;
        const double end = std::max(streamFree, issued) + perChunk;
        const double needed = i * w.gap + stall + w.chunkPass;
        stall += std::max(0.0, end - needed) + std::min(perChunk, w.gap) * exposedShare;
        streamFree = end;
    }
    return std::min(gather, stall);
}

} // namespace

FsdpComm fsdpComm(const StepContext& x, double forwardSeconds, double backwardSeconds)
{
    const Parallelism& par = x.scenario->parallelism;
    FsdpComm f;
    f.reshardEachMicroBatch = par.pp == 1;
    const double hostShare = fsdpHostShardShare(*x.scenario);
    // Nothing to gather unless the dense weights, the experts (replicated where EP x expert TP spans fewer ranks
    // than TP x the FSDP group) or the host copies need it.
    if (!x.fsdp || (x.fsdpGroup <= 1 && expertShardGroup(x, x.fsdpGroup) <= 1 && !(hostShare > 0)))
        return f;
    const double units = x.fsdpUnits;
    const CommGroup g = fsdpGroup(x);
    const double denseUnit = x.denseStageParams / units;
    f.allGather = units * collectiveSeconds(Collective::AllGather, denseUnit * x.denseWeightBytes, g, x.tiers);
    f.reduceScatter = units * collectiveSeconds(Collective::ReduceScatter, denseUnit * x.reduceBytes, g, x.tiers);
    // Experts shard over the ranks that hold the same experts, ep x expert TP apart.
    const int expertGroup = expertShardGroup(x, x.fsdpGroup);
    if (x.expertParams > 0 && expertGroup > 1) {
        const CommGroup ge { expertGroup, par.ep * static_cast<int>(x.expertTp) };
        const double expertUnit = x.expertStageParams / x.layersPerStage;
        f.allGather += x.layersPerStage
            * collectiveSeconds(Collective::AllGather, expertUnit * x.expertWeightBytes, ge, x.tiers);
        f.reduceScatter
            += x.layersPerStage * collectiveSeconds(Collective::ReduceScatter, expertUnit * x.reduceBytes, ge, x.tiers);
    }
    // torch FSDP's CPUOffload: before each pass of all-gathers the rank's FP32 shard of every unit comes in over the
    // host link, and after each pass of reduce-scatters its FP32 gradient shard goes out (FSDP2's FSDPParam copies
    // the sharded parameter to the device for the all-gather's input and the reduced gradient back to the CPU), one
    // after the other with the collective it feeds; with one GPU, nothing to gather, the copies are all there is.
    if (hostShare > 0) {
        const double link = hostLinkBytesPerSec(x);
        const double shard = hostShare * optimizerShardParams(x);
        f.allGather += shard * 4.0 / link;
        f.reduceScatter += shard * 4.0 / link; // cast back to the FP32 parameters' dtype before it leaves
    }
    if (!(f.allGather > 0))
        return f;
    const double share = x.prefetchExposedShare;
    if (f.reshardEachMicroBatch && x.scenario->parallelism.dataParallel == DataParallelKind::MegatronFsdp) {
        megatronFsdpOverlap(f, units, forwardSeconds + backwardSeconds, share);
        return f;
    }
    // The first all-gather and the last reduce-scatter have nothing to hide behind: one unit of each is exposed.
    if (f.reshardEachMicroBatch) {
        f.allGatherForwardExposed = exposedWithLastPiece(f.allGather, forwardSeconds, share, f.allGather / units);
        const double backwardComm = f.allGather + f.reduceScatter;
        const double backwardExposed
            = exposedWithLastPiece(backwardComm, backwardSeconds, share, f.reduceScatter / units);
        f.allGatherBackwardExposed = backwardExposed * f.allGather / backwardComm;
        f.reduceScatterExposed = backwardExposed - f.allGatherBackwardExposed;
    } else {
        f.allGatherStepExposed = exposedWithLastPiece(f.allGather, forwardSeconds, share, f.allGather / units);
        f.reduceScatterStepExposed
            = exposedWithLastPiece(f.reduceScatter, backwardSeconds, share, f.reduceScatter / units);
    }
    return f;
}

Link fsdpLink(const StepContext& x)
{
    return linkOf(fsdpGroup(x), x.tiers);
}

Link dataParallelLink(const StepContext& x)
{
    return linkOf(gradientSyncGroup(x), x.tiers);
}

DataParallelSync dataParallelSync(const StepContext& x, double forwardSeconds, double backwardSeconds)
{
    const Parallelism& par = x.scenario->parallelism;
    DataParallelSync d;
    // HSDP: the gradient shard all-reduced across replicas; the last bucket is exposed. Under FSDP the gradients
    // shard as the optimizer state does, the experts over the ranks that hold the same experts.
    if (x.fsdp && par.hsdpReplicas > 1) {
        const CommGroup g = gradientSyncGroup(x);
        const double buffer = optimizerShardParams(x) * x.reduceBytes;
        const double ar = collectiveSeconds(Collective::AllReduce, buffer, g, x.tiers);
        d.gradients = { ar, exposedWithLastPiece(ar, backwardSeconds, 0.0, ar / x.fsdpUnits) };
    }
    // DDP and ZeRO-1 (Megatron's distributed optimizer): every data-parallel rank holds the whole model-parallel
    // shard. DDP all-reduces the gradients once per step; ZeRO-1 reduce-scatters them and all-gathers the updated
    // BF16 (or FP8) weights, which Megatron overlaps with the next forward (--overlap-param-gather). The gradient
    // bucket sync hides behind the last backward but for its last bucket (--overlap-grad-reduce); with virtual
    // stages, chunk by chunk behind the backwards of the chunks still running (chunkedGradientSyncExposed). Either
    // overlap switched off leaves its collective wholly exposed. Experts reduce over the ranks that share them, also
    // where the dense weights have no data-parallel replica (MoE Parallel Folding's expert data parallelism).
    const CommGroup g = gradientSyncGroup(x);
    const int group = g.size;
    if (!x.fsdp && (group > 1 || expertShardGroup(x, group) > 1)) {
        const double denseRank = x.denseStageParams;
        const double expertRank = x.expertStageParams;
        const int expertGroup = std::max(1, expertShardGroup(x, group));
        const CommGroup ge { expertGroup, par.ep * static_cast<int>(x.expertTp) };
        const bool zero1 = par.dataParallel == DataParallelKind::Zero1;
        const Collective gradSync = zero1 ? Collective::ReduceScatter : Collective::AllReduce;
        double grad = collectiveSeconds(gradSync, denseRank * x.reduceBytes, g, x.tiers);
        if (expertRank > 0 && expertGroup > 1)
            grad += collectiveSeconds(gradSync, expertRank * x.reduceBytes, ge, x.tiers);
        const FrameworkFlags& flags = x.scenario->flags;
        d.gradients = { grad,
            flags.overlapGradReduce ? chunkedGradientSyncExposed(grad, chunkedWindow(x, backwardSeconds)) : grad };
        if (zero1) {
            double gather = collectiveSeconds(Collective::AllGather, denseRank * x.denseWeightBytes, g, x.tiers);
            if (expertRank > 0 && expertGroup > 1)
                gather += collectiveSeconds(Collective::AllGather, expertRank * x.expertWeightBytes, ge, x.tiers);
            d.weightGather = { gather,
                flags.overlapParamGather
                    ? chunkedWeightGatherExposed(gather, chunkedWindow(x, forwardSeconds), x.prefetchExposedShare)
                    : gather };
        }
    }
    return d;
}

} // namespace mfu
