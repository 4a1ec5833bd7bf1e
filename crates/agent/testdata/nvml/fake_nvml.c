/* A stand-in for the driver's libnvidia-ml.so.1, for machines without an NVIDIA GPU: the
 * functions the agent's facts call (through nvml-wrapper 0.13), with the signatures and
 * structure layouts of NVIDIA's nvml.h, answering one H100 SXM with the values of
 * ../nvidia-smi/h100-sxm.csv (its source is in that directory's README) — so the same machine
 * read through NVML and through nvidia-smi must give the same facts.
 *
 * FAKE_NVML_INIT=<code> makes nvmlInit_v2 answer that NVML return code (9: the driver is not
 * loaded); FAKE_NVML_GPUS=<n> lists n GPUs; FAKE_NVML_POWER=0 answers NOT_SUPPORTED (3) for
 * the power limit. Built by the tests with `cc -shared -fPIC`. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

static struct nvmlDevice_st { int index; } devices[4] = {{0}, {1}, {2}, {3}};

static unsigned int gpu_count(void) {
    const char *n = getenv("FAKE_NVML_GPUS");
    unsigned int count = n ? (unsigned int)atoi(n) : 1;
    return count > 4 ? 4 : count;
}

static nvmlReturn_t copy(char *to, unsigned int length, const char *from) {
    if (strlen(from) + 1 > length) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    strcpy(to, from);
    return 0;
}

nvmlReturn_t nvmlInit_v2(void) {
    const char *code = getenv("FAKE_NVML_INIT");
    return code ? atoi(code) : 0;
}
nvmlReturn_t nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(nvmlReturn_t result) {
    return result == 9 ? "Driver Not Loaded" : "Unknown Error";
}
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    return copy(version, length, "590.48.01");
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    *count = gpu_count();
    return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (index >= gpu_count()) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *device = &devices[index];
    return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    (void)device;
    return copy(name, length, "NVIDIA H100 80GB HBM3");
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    char text[64];
    snprintf(text, sizeof text, "GPU-00000000-0000-0000-0000-%012d", device->index);
    return copy(uuid, length, text);
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    (void)device;
    if (memory->version != (sizeof(nvmlMemory_v2_t) | (2u << 24))) return 25; /* ARGUMENT_VERSION_MISMATCH */
    memory->total = 81559ull * 1024 * 1024;
    memory->reserved = 0;
    memory->used = 0;
    memory->free = memory->total;
    return 0;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    memset(pci, 0, sizeof *pci);
    pci->bus = 0;
    pci->device = (unsigned int)(9 + device->index);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:00:%02X.0", 9 + device->index);
    snprintf(pci->busId, sizeof pci->busId, "00000000:00:%02X.0", 9 + device->index);
    return 0;
}
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *milliwatts) {
    (void)device;
    const char *power = getenv("FAKE_NVML_POWER");
    if (power && strcmp(power, "0") == 0) return 3; /* NVML_ERROR_NOT_SUPPORTED */
    *milliwatts = 700000;
    return 0;
}
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    (void)device;
    *major = 9;
    *minor = 0;
    return 0;
}

/* Health. GPU 1 (with FAKE_NVML_GPUS=2) is the unwell one when FAKE_NVML_UNWELL=1: 3
 * uncorrected ECC errors, held down by heat (SW and HW thermal slowdown, 0x20 | 0x40),
 * persistence mode off, two compute processes. Every other GPU: no error, idle (0x1),
 * persistence on, no process. */
static int unwell(nvmlDevice_t device) {
    const char *flag = getenv("FAKE_NVML_UNWELL");
    return flag && strcmp(flag, "1") == 0 && device->index == 1;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                         unsigned long long *count) {
    if (errorType != 1 || counterType != 0) return 2; /* uncorrected, volatile only */
    *count = unwell(device) ? 3 : 0;
    return 0;
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long *reasons) {
    *reasons = unwell(device) ? 0x60ull : 0x1ull;
    return 0;
}
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int *mode) {
    *mode = unwell(device) ? 0 : 1;
    return 0;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                     void *infos) {
    unsigned int running = unwell(device) ? 2 : 0;
    if (infos == NULL || *count < running) {
        *count = running;
        return running == 0 ? 0 : 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    *count = running;
    return 0;
}

/* Telemetry: every GPU draws P(t) = 150 + 50 sin(2 pi t / 5) W at t seconds of the wall
 * clock, and its total-energy counter is the exact integral of that draw, in mJ, from
 * 1,700,000,000 s on — so a test knows what any window's energy is. FAKE_NVML_ENERGY=0 answers
 * NOT_SUPPORTED (3) for the counter, as GPUs before Volta do. SM clock 1980 MHz, 61 C, 97 %. */
#include <math.h>
#include <time.h>

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)(ts.tv_sec - 1700000000) + ts.tv_nsec / 1e9;
}
static const double TWO_PI = 6.283185307179586;
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *milliwatts) {
    double t = wall_s();
    *milliwatts = (unsigned int)((150.0 + 50.0 * sin(TWO_PI * t / 5.0)) * 1000.0);
    return 0;
}
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                 unsigned long long *millijoules) {
    const char *flag = getenv("FAKE_NVML_ENERGY");
    if (flag && strcmp(flag, "0") == 0) return 3;
    double t = wall_s();
    double joules = 150.0 * t + 50.0 * 5.0 / TWO_PI * (1.0 - cos(TWO_PI * t / 5.0));
    *millijoules = (unsigned long long)(joules * 1000.0);
    return 0;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *mhz) {
    if (type != 1) return 2; /* NVML_CLOCK_SM */
    *mhz = 1980;
    return 0;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int *celsius) {
    if (sensor != 0) return 2; /* NVML_TEMPERATURE_GPU */
    *celsius = 61;
    return 0;
}
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *rates) {
    rates->gpu = 97;
    rates->memory = 40;
    return 0;
}
