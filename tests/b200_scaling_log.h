#pragma once
// The B200 scaling report's 8-GPU training log (iteration blocks: device, GPUs, peak and batch in a header, then
// per-iteration time, MFU and tokens/s), as the log tests of every layer read it. It names its device, NVIDIA B200.
namespace mfu::test {

inline constexpr const char* kB200ScalingLog = "  Device:                NVIDIA B200\n"
                                               "  GPUs:                  8\n"
                                               "  Hardware peak:         36000.0 TFLOPS (B200 bf16)\n"
                                               "  Batch size (micro):    24\n"
                                               "  Gradient accum steps:  64\n"
                                               "  Tokens per iteration:  25,165,824\n"
                                               "Iter 0: loss 10.8414, time 59848ms (warming up...)\n"
                                               "Iter     10 | Loss: 10.7715 | Time: 29452ms | LR: 1.65e-06\n"
                                               "MFU: 2.61% | Achieved: 938.2 TF | Peak: 36000.0 TF\n"
                                               "   Tokens/s: 106809 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n"
                                               "Iter     20 | Loss: 10.6000 | Time: 29460ms | LR: 3.30e-06\n"
                                               "MFU: 2.61% | Achieved: 938.0 TF | Peak: 36000.0 TF\n"
                                               "   Tokens/s: 106780 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n";

} // namespace mfu::test
