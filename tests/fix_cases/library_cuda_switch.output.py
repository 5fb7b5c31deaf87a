# A library's own CUDA switch (Lightning 1.x `gpus=`, mergekit's MergeOptions as trl's
# merge_model_callback.py passes it, Lightning's "gpu" accelerator): the torch.cuda test that sets
# it is the library's. On an Ascend host it says no and the library runs its CPU path; renamed
# to torch.npu, it would switch the library's CUDA path on where there is no CUDA.
import pytorch_lightning as pl
import torch
from mergekit.options import MergeOptions


def train(model, epochs):
    trainer = pl.Trainer(max_epochs=epochs, gpus=1 if torch.cuda.is_available() else 0)
    modern = pl.Trainer(
        accelerator="gpu" if torch.cuda.is_available() else "cpu",
        devices=1,
        precision="16-mixed" if torch.cuda.is_available() else "32-true",
    )
    options = MergeOptions(device="auto", cuda=torch.cuda.is_available(), copy_tokenizer=True)
    return trainer.fit(model), modern, options
