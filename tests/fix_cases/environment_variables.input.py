import os
import subprocess


class Runner:
    """monai auto3dseg: `device_setting` is a dict its callers fill in."""

    def __init__(self, device_info):
        self.device_setting = device_info

    def launch(self, cmd):
        env = os.environ.copy()
        env["CUDA_VISIBLE_DEVICES"] = str(self.device_setting["CUDA_VISIBLE_DEVICES"])
        env["NCCL_SOCKET_IFNAME"] = "eth0"
        # one setting passed on: one finding, whose fix renames both (axolotl's tests)
        env["CUDA_VISIBLE_DEVICES"] = env.get("CUDA_VISIBLE_DEVICES", "0,1")
        blocking = os.getenv("CUDA_LAUNCH_BLOCKING", "0")
        subprocess.run(cmd, env={**env, "CUDA_LAUNCH_BLOCKING": blocking})
        return ["CUDA_VISIBLE_DEVICES"]
