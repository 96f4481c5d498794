"""NVIDIA runtime (cuda-python driver API): load a module per device, launch on the caller's stream.

The per-call path is a precomputed ctypes argument packer and one cuLaunchKernel (cuLaunchKernelEx
for kernels compiled with launch_pdl, on GPUs that have programmatic dependent launch).
"""

from __future__ import annotations

import ctypes
import functools
import threading

from tilec.targets import arrays, kernel_arg_ctype

from .tensor_maps import MAP_BYTES, TensorMapRefused, TensorMaps

try:
    from cuda.bindings import driver as cu
except ImportError:  # pragma: no cover - without cuda-python there is no NVIDIA runtime
    try:
        from cuda import cuda as cu
    except ImportError:
        cu = None


DEFAULT_SHARED = 48 * 1024  # dynamic shared memory a kernel gets without opting in


class CudaError(RuntimeError):
    pass


def _check(result, what: str):
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        _, name = cu.cuGetErrorName(err)
        _, text = cu.cuGetErrorString(err)
        raise CudaError(f"{what} failed: {name.decode() if name else err}: {text.decode() if text else ''}")
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


@functools.cache
def unavailable_reason() -> str | None:
    """Why NVIDIA kernels cannot launch here, with what to install; None when they can."""
    if cu is None:
        return "cuda-python is not installed: pip install 'tilec[nvidia]' (and an NVIDIA driver)"
    try:
        _check(cu.cuInit(0), "cuInit")
        if _check(cu.cuDeviceGetCount(), "cuDeviceGetCount") == 0:
            return "cuda-python found no NVIDIA GPU"
    except Exception as e:  # noqa: BLE001 - no driver library, no device, a broken install
        return f"cuda-python found no usable NVIDIA driver or GPU ({e})"
    return None


def available() -> bool:
    return unavailable_reason() is None


available.cache_clear = unavailable_reason.cache_clear  # the probe is cached; tests start it again


@functools.cache
def compute_capability(index: int = 0) -> tuple[int, int]:
    """(9, 0) for an H100/H200, (8, 0) for an A100, ..."""
    if not available():
        raise RuntimeError("no NVIDIA GPU is available (cuda-python found no device)")
    dev = _check(cu.cuDeviceGet(index), "cuDeviceGet")
    attr = cu.CUdevice_attribute
    major = _check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "attr")
    minor = _check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "attr")
    return major, minor


@functools.cache
def device_arch(index: int = 0) -> str:
    """'sm_90a' for an H100/H200, 'sm_80' for an A100, ... (the 'a' variant where it exists)."""
    major, minor = compute_capability(index)
    suffix = "a" if (major, minor) in ((9, 0), (10, 0)) else ""
    return f"sm_{major}{minor}{suffix}"


def synchronize() -> None:
    """Waits for all work of the current context (cuCtxSynchronize)."""
    _check(cu.cuCtxSynchronize(), "cuCtxSynchronize")


def _ensure_context(index: int):
    ctx = _check(cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if ctx is not None and int(ctx) != 0:
        dev = _check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        if int(dev) == index:
            return
    dev = _check(cu.cuDeviceGet(index), "cuDeviceGet")
    primary = _check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    _check(cu.cuCtxSetCurrent(primary), "cuCtxSetCurrent")


_STREAM_GETTERS: dict = {}  # array type -> function(device index) -> raw stream handle


def _stream_of(value, index: int) -> int:
    """The current stream of the library that owns `value` (torch or CuPy), else the default stream."""
    getter = _STREAM_GETTERS.get(type(value))
    if getter is None:
        module = type(value).__module__
        if module.startswith("torch"):
            import torch

            getter = torch._C._cuda_getCurrentRawStream
        elif module.startswith("cupy"):
            import cupy

            def getter(index):
                return cupy.cuda.get_current_stream().ptr
        else:

            def getter(index):
                return 0

        _STREAM_GETTERS[type(value)] = getter
    return getter(index)


class _Driver:
    """What the launch path needs from the driver, looked up once. Launches go through cuda-python's
    cuLaunchKernel (a compiled binding: measured faster than a ctypes call into libcuda); the current
    context is checked through ctypes only where several GPUs make it necessary."""

    def __init__(self):
        self.launch = cu.cuLaunchKernel
        self.launch_ex = cu.cuLaunchKernelEx
        self.success = cu.CUresult.CUDA_SUCCESS
        lib = ctypes.CDLL("libcuda.so.1")
        self.get_current = lib.cuCtxGetCurrent
        self.get_current.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self.set_current = lib.cuCtxSetCurrent
        self.set_current.argtypes = [ctypes.c_void_p]
        self.multi_device = _check(cu.cuDeviceGetCount(), "cuDeviceGetCount") > 1


@functools.cache
def _driver() -> _Driver:
    return _Driver()


class Launcher:
    """Launches one compiled kernel: its module is loaded per device on first use; the arguments go
    into preallocated ctypes slots; one cuLaunchKernel on the current stream of the arrays' library."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.name = kernel.name
        self.image = kernel.asm.get("cubin") or kernel.asm["ptx"].encode() + b"\0"
        self.threads = kernel.options.num_warps * 32
        self.shared = int(kernel.metadata.get("shared", 0))
        self.arg_types = kernel.arg_types
        self.slots = [kernel_arg_ctype(t)() for t in kernel.arg_types]
        # tensor maps (targets/nvidia/lowering/tma.py): parameters after the arguments, encoded at each launch
        map_specs = kernel.metadata.get("tensor_maps") or []
        map_slots = [(ctypes.c_ubyte * MAP_BYTES)() for _ in map_specs]
        self.tensor_maps = TensorMaps(kernel.name, map_specs, map_slots) if map_specs else None
        self.plain = None  # the kernel without tensor copies, for launches whose maps are refused
        # debug builds (tile-check-bounds): the byte range of each pointer argument, after the arguments
        self.ranges = []
        if kernel.metadata.get("bounds_checked"):
            pointers = [i for i, t in enumerate(kernel.arg_types) if t.is_ptr()]
            self.ranges = [(i, ctypes.c_uint64(), ctypes.c_uint64()) for i in pointers]
        range_slots = [slot for _, lo, hi in self.ranges for slot in (lo, hi)]
        every = self.slots + range_slots + map_slots
        self.params = (ctypes.c_void_p * max(1, len(every)))(*[ctypes.addressof(b) for b in every])
        self.params_address = ctypes.addressof(self.params)
        self.pointers = [(i, self.slots[i]) for i, t in enumerate(kernel.arg_types) if t.is_ptr()]
        self.scalars = [(i, self.slots[i]) for i, t in enumerate(kernel.arg_types) if not t.is_ptr()]
        # device index -> (CUfunction, context address, module, launch configuration or None)
        self.functions: dict[int, tuple] = {}
        self.lock = threading.Lock()
        self.driver = _driver()
        self.programmatic = bool(getattr(kernel.options, "launch_pdl", False))

    def function(self, index: int) -> tuple:
        """The kernel on device `index` (its module is loaded there on first use), its context, its
        module and its cuLaunchKernelEx configuration (None: launched by cuLaunchKernel)."""
        _ensure_context(index)
        module = _check(cu.cuModuleLoadData(self.image), f"loading {self.name}")
        fn = _check(cu.cuModuleGetFunction(module, self.name.encode()), f"cuModuleGetFunction({self.name})")
        if self.shared > DEFAULT_SHARED:
            self._opt_into_shared(fn, index)
        context = _check(cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
        config = self._programmatic_config(index) if self.programmatic else None
        entry = (fn, int(context), module, config)
        self.functions[index] = entry
        return entry

    def _programmatic_config(self, index: int):
        """launch_pdl: a cuLaunchKernelEx configuration that lets this kernel start while the previous
        kernel on its stream still runs (programmatic stream serialization; its gdc_wait() waits for
        that kernel's memory operations). None before sm_90, which has no such launch: the kernel then
        starts after the previous one ends, which is what gdc_wait() would have waited for anyway."""
        if compute_capability(index)[0] < 9:
            return None
        attribute = cu.CUlaunchAttribute()
        attribute.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attribute.value.programmaticStreamSerializationAllowed = 1
        config = cu.CUlaunchConfig()
        config.blockDimX, config.blockDimY, config.blockDimZ = self.threads, 1, 1
        config.sharedMemBytes = self.shared
        config.attrs = [attribute]
        config.numAttrs = 1
        return config

    def _opt_into_shared(self, fn, index: int) -> None:
        """Kernels may use more than 48 KiB of (dynamic) shared memory only after asking for it; say
        plainly when the device has less than the kernel needs."""
        dev = _check(cu.cuDeviceGet(index), "cuDeviceGet")
        limit = _check(
            cu.cuDeviceGetAttribute(
                cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev
            ),
            "cuDeviceGetAttribute",
        )
        if self.shared > limit:
            raise CudaError(
                f"{self.name} needs {self.shared} bytes of shared memory per program but device {index} "
                f"allows at most {limit}; use smaller blocks (num_warps={self.kernel.options.num_warps}, "
                f"num_stages={self.kernel.options.num_stages})"
            )
        attribute = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        _check(cu.cuFuncSetAttribute(fn, attribute, self.shared), f"cuFuncSetAttribute({self.name})")

    def __call__(self, grid, args):
        try:
            return self._launch(grid, args)
        except TensorMapRefused as refused:
            if not refused.made_in_kernel:
                raise
        # An array the kernel makes of its arguments (pointer loads raised by
        # tile-pointer-tensor-copies, a block pointer, tl.make_tensor_descriptor) whose map the driver
        # refuses for these arguments (a negative row stride, say): the same kernel without tensor
        # copies reads the same through its pointers.
        with self.lock:
            if self.plain is None:
                from .compiler import without_tensor_copies

                self.plain = Launcher(without_tensor_copies(self.kernel))
        return self.plain(grid, args)

    def _launch(self, grid, args):
        device, source = 0, None
        with self.lock:
            for i, slot in self.scalars:
                slot.value = args[i]
            for i, slot in self.pointers:
                v = args[i]
                if getattr(v, "is_cuda", False):  # torch tensors: the fast, common case
                    slot.value = v.data_ptr()
                    source = v
                    continue
                info = arrays.describe(v)
                if info is None or info.device != "cuda":
                    raise TypeError(
                        f"{self.name}: argument {self.kernel.arg_names[i]} must be a GPU array, "
                        f"got {type(v).__name__}"
                    )
                slot.value = info.address
                source, device = v, info.device_index
            gx, gy, gz = grid
            if gx * gy * gz == 0:
                return
            if self.tensor_maps is not None:
                self.tensor_maps.fill(lambda i: self.slots[i].value, args)
            for i, lo, hi in self.ranges:
                lo.value, hi.value = arrays.device_byte_span(args[i])
            if source is not None and hasattr(source, "get_device"):
                device = source.get_device()
            entry = self.functions.get(device) or self.function(device)
            driver = self.driver
            if driver.multi_device:  # the current context may belong to another GPU
                self._check_one_device(args, device)
                current = ctypes.c_void_p()
                driver.get_current(ctypes.byref(current))
                if current.value != entry[1]:
                    driver.set_current(entry[1])
            stream = _stream_of(source, device) if source is not None else 0
            config = entry[3]
            if config is None:
                (err,) = driver.launch(
                    entry[0], gx, gy, gz, self.threads, 1, 1, self.shared, stream, self.params_address, 0
                )
            else:
                config.gridDimX, config.gridDimY, config.gridDimZ = gx, gy, gz
                config.hStream = cu.CUstream(stream)
                (err,) = driver.launch_ex(config, entry[0], self.params_address, 0)
        if err != driver.success:
            raise CudaError(self._launch_failure(err, tuple(grid), device))

    def _check_one_device(self, args, device: int) -> None:
        """A kernel runs on one GPU: arrays on another would be read through addresses that mean
        nothing there."""
        for i, _ in self.pointers:
            info = arrays.describe(args[i])
            if info is not None and info.device == "cuda" and info.device_index != device:
                raise ValueError(
                    f"{self.name}: argument {self.kernel.arg_names[i]} is on cuda:{info.device_index} "
                    f"but the kernel launches on cuda:{device}: all its arrays must be on one GPU"
                )

    def _launch_failure(self, err, grid, device: int) -> str:
        """What went wrong, in the user's terms: the grid limits, the registers or the shared memory
        this kernel needs, instead of a bare CUresult."""
        _, name = cu.cuGetErrorName(err)
        name = name.decode() if name else str(err)
        config = f"grid {grid}, {self.threads} threads (num_warps={self.kernel.options.num_warps})"
        why = ""
        if grid[0] > 2**31 - 1 or grid[1] > 65535 or grid[2] > 65535:
            why = "; the grid may have at most 2**31 - 1 programs along axis 0 and 65535 along axes 1 and 2"
        elif name == "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES":
            entry = self.functions.get(device)
            attribute = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS
            regs = _check(cu.cuFuncGetAttribute(attribute, entry[0]), "cuFuncGetAttribute") if entry else None
            why = (
                f"; each thread needs {regs} registers, too many for {self.threads} threads per program: "
                "use fewer warps or smaller blocks"
                if regs
                else ""
            )
        elif self.shared:
            why = f"; the kernel uses {self.shared} bytes of shared memory per program"
        return f"launching {self.name} failed: {name} ({config}){why}"
